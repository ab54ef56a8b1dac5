@testable import CareFHIR
import Foundation
import Testing

/// Language data files, their CLDR plural rules and the English fallback.
struct LanguageTests {
    @Test func bothLanguagesShipAsDataFiles() throws {
        #expect(DosageLanguage.available.contains("en"))
        #expect(DosageLanguage.available.contains("de"))
        #expect(throws: LanguageError.unknown("xx", available: DosageLanguage.available)) { try DosageLanguage("xx") }
        #expect(throws: LanguageError.self) { try DosageLanguage("../en") }
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
        let german = try DosageLanguage("de")
        #expect(german.category("1") == "one")
        #expect(german.category("1.5") == "other")
        #expect(german.phrase(["units", "tablet"], count: 1) == "Tablette")
        #expect(german.phrase(["units", "tablet"], count: 21) == "Tabletten")
        #expect(german.phrase(["times"], count: 2) == "2-mal")
        #expect(try DosageLanguage("en").phrase(["times"], count: 2) == "twice")
    }

    @Test func missingEntriesFallBackToEnglish() throws {
        let german = try DosageLanguage("de")
        // German has no unit aliases and no "mg" of its own: both come from English.
        #expect(german.entry(["unitAliases", "tab"])?.string == "tablet")
        #expect(german.phrase(["units", "mg"], count: 5) == "mg")
        #expect(DosageText(language: german).unit(Quantity(value: 2, unit: "TAB"), count: 2) == "Tabletten")
        #expect(german.phrase(["no", "such", "key"]) == "no.such.key")
    }

    @Test func theSameDosageInBothLanguages() throws {
        let dosage = Dosage(
            timing: Timing(repeat: .init(frequency: 2, period: 1, periodUnit: "d", when: ["ACM", "ACV"])),
            doseAndRate: [.init(doseQuantity: Quantity(value: 2, unit: "tablet"))])
        #expect(DosageText(language: try DosageLanguage("en")).sentence(for: dosage) == "2 tablets twice a day before breakfast and dinner")
        #expect(DosageText(language: try DosageLanguage("de")).sentence(for: dosage) == "2 Tabletten 2-mal täglich vor dem Frühstück und dem Abendessen")
    }
}
