import CarePlan
import Foundation
import GRDB

/// How the change log stores an outcome: plain columns, with JSON only for the lists and
/// maps that are usually empty, so reading a day's outcomes rarely decodes any JSON.
enum OutcomeColumns {
    /// The columns, in the order ``decode(_:at:device:)`` reads them.
    static let names = qualified(by: nil)

    /// ``names`` qualified by a table alias, for joins.
    static func qualified(by alias: String?) -> String {
        ["state", "recorded_at", "outcome_values", "reason", "user_info", "clock_ms", "clock_logical"]
            .map { (alias.map { "\($0)." } ?? "") + $0 }.joined(separator: ", ")
    }

    static func values(_ outcome: Outcome?) throws -> [(any DatabaseValueConvertible)?] {
        guard let outcome else { return Array(repeating: nil, count: 7) }
        return [
            outcome.state.rawValue, outcome.recordedAt.timeIntervalSince1970,
            outcome.values.isEmpty ? nil : try StoredJSON.encode(outcome.values), outcome.reason,
            outcome.userInfo.isEmpty ? nil : try StoredJSON.encode(outcome.userInfo),
            outcome.clock?.physical, outcome.clock.map { Int64($0.logical) },
        ]
    }

    /// The outcome in the columns starting at `index`, or `nil` for a change without one.
    static func decode(_ row: Row, at index: Int, device: String) throws -> Outcome? {
        guard let stateName = row[index] as String? else { return nil }
        guard let state = EventState(rawValue: stateName) else {
            throw CarePlanStoreError.database("unknown event state \"\(stateName)\" in the change log")
        }
        return Outcome(
            state: state,
            values: try (row[index + 2] as String?).map { try StoredJSON.decode([OutcomeValue].self, from: $0) } ?? [],
            recordedAt: Date(timeIntervalSince1970: row[index + 1]),
            device: device,
            reason: row[index + 3],
            userInfo: try (row[index + 4] as String?).map { try StoredJSON.decode([String: String].self, from: $0) } ?? [:],
            clock: (row[index + 5] as Int64?).map {
                HybridTimestamp(physical: $0, logical: UInt32(row[index + 6] as Int64? ?? 0), node: device)
            })
    }
}
