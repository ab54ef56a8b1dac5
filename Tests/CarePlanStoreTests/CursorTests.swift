import CarePlan
import CarePlanStore
import Testing

/// Named cursors into the change log.
struct CursorTests {
    let scratch = Scratch()

    @Test func aCursorStartsAtZeroMovesOnlyForwardAndIsNotAChange() async throws {
        let store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        try await store.core.plan.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        let revision = try await store.revision()
        #expect(try await store.measurements.cursor("fhir-export http://a/") == nil)
        try await store.core.cursors.advance("fhir-export http://a/", to: 5)
        try await store.core.cursors.advance("fhir-export http://a/", to: 3)
        try await store.core.cursors.advance("fhir-export http://b/", to: 1)
        #expect(try await store.measurements.cursor("fhir-export http://a/") == 5)
        #expect(try await store.measurements.cursor("fhir-export http://b/") == 1)
        #expect(try await store.revision() == revision)
        // Kept in the file.
        #expect(try await CarePlanStore(path: store.path).measurements.cursor("fhir-export http://a/") == 5)
    }
}
