import CarePlan
import CarePlanStore
import Foundation
import Synchronization

/// A directory for one test, removed when the test is done with it.
final class Scratch: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

let monday = CalendarDay("2026-11-02")!

func intervention(_ id: String, times: [String] = ["08:00", "20:00"], start: CalendarDay = monday, group: String? = nil, tags: [String] = []) throws -> Activity {
    try Activity(
        identifier: id, groupIdentifier: group, kind: .intervention, title: id.capitalized, tags: tags,
        schedule: .daily(times: times.map { TimeOfDay($0)! }, start: start))
}

func painScale(_ id: String = "pain", resettable: Bool = false) throws -> Activity {
    try Activity(
        identifier: id, kind: .assessment, title: "Pain", resultResettable: resettable,
        result: .scale(min: 0, max: 10), schedule: .daily(occurrences: 1, start: monday))
}

func done(_ device: String = "test", values: [OutcomeValue] = [], at date: Date = Date()) -> Outcome {
    Outcome(state: .completed, values: values, recordedAt: date, device: device)
}
