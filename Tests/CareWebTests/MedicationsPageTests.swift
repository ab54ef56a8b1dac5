import CareFHIR
import CareLanguage
import CarePlan
import Foundation
import Testing

/// The medications page writes each order's instructions in the page's language, from the
/// FHIR dosage kept with the imported activity.
struct MedicationsPageTests {
    @Test func importedOrdersReadInEnglishOrGerman() async throws {
        let web = try await WebFixture()
        let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/fhir/medications-bundle.json")
        let input = try FHIRInput.parse(try Data(contentsOf: bundle), document: bundle.lastPathComponent)
        let mapper = OrderMapper(today: WebFixture.day, timeZone: .gmt, language: try Language("en"))
        let report = try await FHIRImporter(mapper: mapper, device: "test").run(input, into: web.store)
        #expect(!report.added.isEmpty, "\(report)")
        try await web.signIn()

        let english = try await web.request(.GET, "/medications", headers: [("Accept-Language", "en")]).body
        let german = try await web.request(.GET, "/medications", headers: [("Accept-Language", "de")]).body
        let instructions = { (page: String) in
            page.matches(of: /<p class="instructions">([^<]*)<\/p>/).map { String($0.1) }
        }
        let (inEnglish, inGerman) = (instructions(english), instructions(german))
        #expect(!inEnglish.isEmpty && inEnglish.count == inGerman.count)
        #expect(inEnglish.contains { $0.contains("Take") || $0.contains("tablet") }, "\(inEnglish)")
        #expect(inGerman.contains { $0.contains("Tablette") || $0.contains("einnehmen") }, "\(inGerman)")
        #expect(Set(inEnglish).isDisjoint(with: inGerman))
        try await web.stop()
    }
}
