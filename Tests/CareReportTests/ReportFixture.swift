import CareLanguage
import CarePlan
import CarePlanDocument
import CarePlanStore
import CareReport
import Foundation

/// The example plan with ten days of record (16–25 November 2026): Z-Cure (from the 20th,
/// twice a day) in full on the 20th, 22nd and 24th and half on the other days; pain
/// 8 8 7 1 3 8 2 7 3 8.
struct ReportFixture {
    static let days = CalendarDay("2026-11-16")!...CalendarDay("2026-11-25")!
    static let now = ISO8601DateFormatter().date(from: "2026-11-26T11:00:00Z")!
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-report-\(UUID().uuidString)")
    let store: CarePlanStore

    init() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let plan = try PlanDocument.load(
            path: Self.repository.appendingPathComponent("Examples/zombiecare-plan.json").path, defaultStart: Self.days.lowerBound)
        try await store.load(plan, effectiveFrom: Self.days.lowerBound, device: "test")
        func done(_ id: String, _ day: Int, _ occurrence: Int, _ values: [OutcomeValue] = []) async throws {
            let key = EventKey(activityID: id, day: CalendarDay(year: 2026, month: 11, day: day)!, occurrence: occurrence)
            _ = try await store.setOutcome(Outcome(state: .completed, values: values, recordedAt: Self.now, device: "test"), for: key)
        }
        for day in 20...25 {
            for occurrence in day % 2 == 0 ? [0, 1] : [0] { try await done("z-cure", day, occurrence) }
        }
        for (offset, pain) in [8, 8, 7, 1, 3, 8, 2, 7, 3, 8].enumerated() {
            try await done("pain", 16 + offset, 0, [OutcomeValue(.integer(pain))])
        }
    }

    func report(_ code: String = "en", paper: CareReport.Paper = .a4, comments: [String] = []) async throws -> CareReport {
        try await CareReport.read(
            from: store, days: Self.days, now: Self.now, language: try Language(code), paper: paper, comments: comments)
    }

    /// Where a test leaves what it rendered, to be looked at (and the README's picture).
    static let renders = repository.appendingPathComponent(".build/renders")
}
