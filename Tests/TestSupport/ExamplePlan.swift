import CarePlan
import Foundation

/// The Monday the store and core tests' plans begin on.
public let monday = CalendarDay("2026-11-02")!

/// A daily intervention at `times`, from `start`.
public func intervention(
    _ id: String, times: [String] = ["08:00", "20:00"], start: CalendarDay = monday, group: String? = nil, tags: [String] = []
) throws -> Activity {
    try Activity(
        identifier: id, groupIdentifier: group, kind: .intervention, title: id.capitalized, tags: tags,
        schedule: .daily(times: times.map { TimeOfDay($0)! }, start: start))
}

/// A daily pain assessment on a scale of 0 to 10, from ``monday``.
public func painScale(_ id: String = "pain", resettable: Bool = false) throws -> Activity {
    try Activity(
        identifier: id, kind: .assessment, title: "Pain", resultResettable: resettable,
        result: .scale(min: 0, max: 10), schedule: .daily(occurrences: 1, start: monday))
}

/// A completed outcome from `device`, with `values`.
public func done(_ device: String = "test", values: [OutcomeValue] = [], at date: Date = Date()) -> Outcome {
    Outcome(state: .completed, values: values, recordedAt: date, device: device)
}
