@testable import CareFHIR
import CareLanguage
import Foundation
import Testing

/// The dosage sentences in each language, and English's words where another has none.
struct DosageLanguageTests {
    @Test func missingEntriesFallBackToEnglish() throws {
        let german = try Language("de")
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
        #expect(DosageText(language: try Language("en")).sentence(for: dosage) == "2 tablets twice a day before breakfast and dinner")
        #expect(DosageText(language: try Language("de")).sentence(for: dosage) == "2 Tabletten 2-mal täglich vor dem Frühstück und dem Abendessen")
    }
}
