import CarePlan
import CarePlanStore
import Testing

/// Named cursors into the change log.
struct CursorTests {
    let scratch = Scratch()

    @Test func aCursorStartsAtZeroMovesOnlyForwardAndIsNotAChange() throws {
        let store = try CarePlanStore(path: scratch.path("store.sqlite"))
        try store.addActivity(intervention("apple"), effectiveFrom: monday, device: "t")
        let revision = try store.revision()
        #expect(try store.cursor("fhir-export http://a/") == 0)
        try store.advanceCursor("fhir-export http://a/", to: 5)
        try store.advanceCursor("fhir-export http://a/", to: 3)
        try store.advanceCursor("fhir-export http://b/", to: 1)
        #expect(try store.cursor("fhir-export http://a/") == 5)
        #expect(try store.cursor("fhir-export http://b/") == 1)
        #expect(try store.revision() == revision)
        // Kept in the file.
        #expect(try CarePlanStore(path: store.path).cursor("fhir-export http://a/") == 5)
    }
}
