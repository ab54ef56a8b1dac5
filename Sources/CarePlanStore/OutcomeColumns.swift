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

    /// Binds the columns of `outcome` (all NULL without one), in the order of ``names``.
    static func bind(_ outcome: Outcome?, to statement: inout DirectStatement) throws {
        statement.bind(outcome?.state.rawValue)
        statement.bind(outcome?.recordedAt.timeIntervalSince1970)
        statement.bind(try outcome.flatMap { $0.values.isEmpty ? nil : try StoredJSON.encode($0.values) })
        statement.bind(outcome?.reason)
        statement.bind(outcome.flatMap { $0.userInfo.isEmpty ? nil : StoredJSON.encode($0.userInfo) })
        statement.bind(outcome?.clock?.physical)
        statement.bind(outcome?.clock.map { Int64($0.logical) })
    }

    /// The outcome in the columns starting at `index`, or `nil` for a change without one.
    static func decode(_ row: some ColumnReading, at index: Int, device: String) throws -> Outcome? {
        guard let stateName = row.text(index) else { return nil }
        guard let state = EventState(rawValue: stateName) else {
            throw CarePlanStoreError.database("unknown event state \"\(stateName)\" in the change log")
        }
        return Outcome(
            state: state,
            values: try row.text(index + 2).map { try StoredJSON.decode([OutcomeValue].self, from: $0) } ?? [],
            recordedAt: Date(timeIntervalSince1970: try row.double(required: index + 1)),
            device: device,
            reason: row.text(index + 3),
            userInfo: try row.text(index + 4).map { try StoredJSON.decode([String: String].self, from: $0) } ?? [:],
            clock: row.int(index + 5).map {
                HybridTimestamp(physical: Int64($0), logical: UInt32(row.int(index + 6) ?? 0), node: device)
            })
    }
}
