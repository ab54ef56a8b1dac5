import CareLanguage
import CarePlan
import CarePlanDocument
import CarePlanStore
import CareReport
import Foundation
import TestSupport

/// The example plan with ten days of record (16–25 November 2026): Z-Cure (from the 20th,
/// twice a day) in full on the 20th, 22nd and 24th and half on the other days; pain
/// 8 8 7 1 3 8 2 7 3 8; a watch's heart rate on the 16th (70 and 80), 18th (90) and 25th
/// (60, 62, 64), and its steps on the 17th (4000) and 20th (6500 and 1500).
struct ReportFixture {
    static let days = CalendarDay("2026-11-16")!...CalendarDay("2026-11-25")!
    static let now = ISO8601DateFormatter().date(from: "2026-11-26T11:00:00Z")!
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let scratch = Scratch()
    let directory: URL
    let store: CarePlanStore

    init() async throws {
        directory = scratch.url.appendingPathComponent("report")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let plan = try PlanDocument.load(
            path: Self.repository.appendingPathComponent("Examples/zombiecare-plan.json").path, defaultStart: Self.days.lowerBound)
        try await store.core.plan.load(plan, effectiveFrom: Self.days.lowerBound, device: "test")
        func done(_ id: String, _ day: Int, _ occurrence: Int, _ values: [OutcomeValue] = []) async throws {
            let key = EventKey(activityID: id, day: CalendarDay(year: 2026, month: 11, day: day)!, occurrence: occurrence)
            _ = try await store.record(Outcome(state: .completed, values: values, recordedAt: Self.now, device: "test"), for: key)
        }
        for day in 20...25 {
            for occurrence in day % 2 == 0 ? [0, 1] : [0] { try await done("z-cure", day, occurrence) }
        }
        for (offset, pain) in [8, 8, 7, 1, 3, 8, 2, 7, 3, 8].enumerated() {
            try await done("pain", 16 + offset, 0, [OutcomeValue(.integer(pain))])
        }
        let watch = MeasurementSource(id: "watch:sensor", name: "Kitchen watch")
        let vienna = TimeZone(identifier: "Europe/Vienna")!
        var samples: [MeasurementSample] = []
        func take(_ type: MeasurementType, _ value: Double, on day: Int, at hour: Int) {
            let start = CalendarDay(year: 2026, month: 11, day: day)!.date(at: TimeOfDay(hour: hour, minute: 0)!, in: vienna)
            samples.append(MeasurementSample(id: "\(type)-\(day)-\(hour)", type: type, value: value, unit: type.units[0], start: start, sourceID: watch.id))
        }
        for (day, hour, rate) in [(16, 8, 70.0), (16, 20, 80), (18, 9, 90), (25, 7, 60), (25, 12, 62), (25, 18, 64)] {
            take(.heartRate, rate, on: day, at: hour)
        }
        for (day, hour, steps) in [(17, 10, 4000.0), (20, 10, 6500), (20, 17, 1500)] { take(.steps, steps, on: day, at: hour) }
        _ = try await store.record(samples, sources: [watch], device: "watch")
    }

    func report(_ code: String = "en", paper: CareReport.Paper = .a4, comments: [String] = []) async throws -> CareReport {
        try await CareReport.read(
            from: store, days: Self.days, now: Self.now, language: try Language(code), paper: paper, comments: comments)
    }

    /// Where a test leaves what it rendered, to be looked at (and the README's picture).
    static let renders = repository.appendingPathComponent(".build/renders")
}
