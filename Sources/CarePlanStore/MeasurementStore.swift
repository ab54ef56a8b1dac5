import CarePlan
import Foundation
import GRDB

/// A measurement as the store keeps it: with its source, the node that delivered it, when
/// it arrived, and its place in the order of arrival (what exports resume from).
public struct StoredMeasurement: Sendable, Hashable {
    /// Increases with each measurement stored.
    public var sequence: Int
    public var measurement: MeasurementSample
    public var source: MeasurementSource
    /// The node that delivered it: a companion's fingerprint, or the command line's `--device`.
    public var device: String
    public var receivedAt: Date
}

/// What became of a batch of measurements: each stored, already stored (the same id came
/// before), or refused with its reason; nothing refused keeps the others out. Also the
/// assessment events the stored ones completed.
public struct MeasurementReceipt: Sendable, Hashable {
    public var stored: [String] = []
    public var duplicates: [String] = []
    public var refused: [(id: String, reason: MeasurementError)] = []
    /// Events of assessments linked to a measurement type (`Activity.measurement`) that
    /// a stored sample completed.
    public var completed: [EventKey] = []

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.stored == b.stored && a.duplicates == b.duplicates && a.refused.map(\.id) == b.refused.map(\.id)
            && a.refused.map(\.reason) == b.refused.map(\.reason) && a.completed == b.completed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(stored)
        hasher.combine(duplicates)
        hasher.combine(refused.map(\.id))
    }
}

extension MeasurementStore {
    /// Stored measurements taken from `from` (inclusive) until `until` (exclusive), of `type`
    /// if given, in the order they were taken; at most `limit`.
    public func list(
        type: MeasurementType? = nil, from: Date? = nil, until: Date? = nil, limit: Int? = nil
    ) async throws(CarePlanStoreError) -> [StoredMeasurement] {
        try await read { db in
            var conditions: [String] = []
            var arguments: [(any DatabaseValueConvertible)?] = []
            if let type { conditions.append("m.type = ?"); arguments.append(type.rawValue) }
            if let from { conditions.append("m.start_at >= ?"); arguments.append(from.timeIntervalSince1970) }
            if let until { conditions.append("m.start_at < ?"); arguments.append(until.timeIntervalSince1970) }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let rows = try db.rows(
                Self.measurementSelect + " \(filter) ORDER BY m.start_at, m.seq LIMIT ?", arguments: StatementArguments(arguments + [limit ?? -1]))
            return try rows.map(Self.storedMeasurement)
        }
    }

    /// Measurements stored after `sequence` (``StoredMeasurement/sequence``), in the order
    /// they were stored, taken at or after `from` if given; at most `limit`. What an export
    /// resumes from.
    public func list(
        storedAfter sequence: Int, takenFrom from: Date? = nil, limit: Int
    ) async throws(CarePlanStoreError) -> [StoredMeasurement] {
        try await read { db in
            try db.rows(
                Self.measurementSelect + " WHERE m.seq > ? AND m.start_at >= ? ORDER BY m.seq LIMIT ?",
                arguments: [sequence, from?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude, limit]
            ).map(Self.storedMeasurement)
        }
    }

    /// The newest measurement's sequence, 0 if none is stored.
    public func lastSequence() async throws(CarePlanStoreError) -> Int {
        try await read { db in try db.value(Int.self, "SELECT max(seq) FROM measurement") ?? 0 }
    }

    private static let measurementSelect = """
        SELECT m.seq, m.id, m.type, m.value, m.diastolic, m.unit, m.start_at, m.end_at, m.source_id, m.device, m.received_at,
               s.name, s.manufacturer, s.model, s.software_version
        FROM measurement m JOIN measurement_source s ON s.id = m.source_id
        """

    /// The measurements taken on `days` in `zone` (a day's midnight to the next), of `type`
    /// if given, in the order they were taken.
    public func list(
        on days: ClosedRange<CalendarDay>, in zone: TimeZone, type: MeasurementType? = nil
    ) async throws(CarePlanStoreError) -> [StoredMeasurement] {
        try await list(type: type, from: days.lowerBound.start(in: zone), until: days.upperBound.adding(days: 1).start(in: zone))
    }

    private static func storedMeasurement(_ row: Row) throws -> StoredMeasurement {
        let typeName: String = row[2]
        guard let type = MeasurementType(rawValue: typeName) else {
            throw CarePlanStoreError.database("unknown measurement type \"\(typeName)\"")
        }
        let measurement = MeasurementSample(
            id: row[1], type: type, value: row[3], diastolic: row[4], unit: row[5], start: Date(timeIntervalSince1970: row[6]),
            end: Date(timeIntervalSince1970: row[7]), sourceID: row[8])
        let source = MeasurementSource(id: row[8], name: row[11], manufacturer: row[12], model: row[13], softwareVersion: row[14])
        return StoredMeasurement(
            sequence: row[0], measurement: measurement, source: source, device: row[9], receivedAt: Date(timeIntervalSince1970: row[10]))
    }
}
