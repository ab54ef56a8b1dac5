@testable import CareLanguage
import Foundation
import Testing

/// Language data files and their CLDR plural rules.
struct LanguageTests {
    @Test func bothLanguagesShipAsDataFiles() throws {
        #expect(Language.available.contains("en"))
        #expect(Language.available.contains("de"))
        #expect(throws: LanguageError.unknown("xx", available: Language.available)) { try Language("xx") }
        #expect(throws: LanguageError.self) { try Language("../en") }
    }

    @Test func pluralRulesOfCLDR() throws {
        let one = try #require(PluralRule("i = 1 and v = 0 @integer 1"))
        #expect(one.matches("1"))
        #expect(!one.matches("1.0"))
        #expect(!one.matches("2"))
        #expect(!one.matches("0.5"))
        // Russian "few": n % 10 = 2..4 and n % 100 != 12..14.
        let few = try #require(PluralRule("v = 0 and i % 10 = 2..4 and i % 100 != 12..14"))
        #expect(few.matches("3") && few.matches("22") && few.matches("104"))
        #expect(!few.matches("12") && !few.matches("5") && !few.matches("2.5"))
        // French "one": i = 0,1.
        let french = try #require(PluralRule("i = 0,1"))
        #expect(french.matches("0") && french.matches("1.5") && !french.matches("2"))
        #expect(PluralRule("n = ") == nil)
        #expect(PluralRule("x = 1") == nil)
    }

    @Test func categoriesComeFromTheFile() throws {
        let german = try Language("de")
        #expect(german.category("1") == "one")
        #expect(german.category("1.5") == "other")
        #expect(german.phrase(["units", "tablet"], count: 1) == "Tablette")
        #expect(german.phrase(["units", "tablet"], count: 21) == "Tabletten")
        #expect(german.phrase(["times"], count: 2) == "2-mal")
        #expect(try Language("en").phrase(["times"], count: 2) == "twice")
    }
}

/// Issue 53, item 6: placeholders are filled once, in one pass, whatever order the values
/// come in: a person's text holding `{time}` is never read as a template.
struct PlaceholderTests {
    @Test func aValueIsNeverReadAsATemplate() throws {
        let german = try Language("de")
        for _ in 0..<20 {  // a dictionary's order changes from run to run and from value to value
            let values = ["reason": "ran out {time} {reason}", "time": "08:00", "since": "{since}", "newest": "N", "retry": "R"]
            let text = german.phrase(["web", "backups", "failing"], values)
            #expect(text.contains("ran out {time} {reason}") && text.contains("{since}"), "\(text)")
        }
        #expect(Language.fill("{a}{b} {c} {", ["a": "{b}", "b": "x"]) == "{b}x {c} {")
        #expect(Language.fill("no placeholders", ["a": "1"]) == "no placeholders")
    }
}
