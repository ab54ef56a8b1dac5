import CarePlan
import Foundation
import GRDB

/// Measurements, their sources and readers' cursors, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordMeasurements: RecordPart {
    let record: RecordTransaction
}

extension RecordMeasurements {
    /// Keeps `source` as `device` delivered it (its details updated when they changed).
    public func keep(_ source: MeasurementSource, from device: String) throws {
        try db.run("""
            INSERT INTO measurement_source (id, name, manufacturer, model, software_version, device, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, manufacturer = excluded.manufacturer,
                model = excluded.model, software_version = excluded.software_version, device = excluded.device,
                updated_at = excluded.updated_at
            WHERE (name, manufacturer, model, software_version, device)
                IS NOT (excluded.name, excluded.manufacturer, excluded.model, excluded.software_version, excluded.device)
            """, arguments: [
                source.id, source.name, source.manufacturer, source.model, source.softwareVersion, device, now.timeIntervalSince1970,
            ])
    }

    /// Whether the source `id` is kept.
    public func hasSource(_ id: String) throws -> Bool {
        try db.value(Int.self, "SELECT 1 FROM measurement_source WHERE id = ?", arguments: [id]) != nil
    }

    /// Keeps `measurement` as `device` delivered it; `false` if its id was kept before (and
    /// nothing changes).
    public func keep(_ measurement: MeasurementSample, from device: String) throws -> Bool {
        try db.run("""
            INSERT INTO measurement (id, type, value, diastolic, unit, start_at, end_at, source_id, device, received_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
            """, arguments: [
                measurement.id, measurement.type.rawValue, measurement.value, measurement.diastolic, measurement.unit,
                measurement.start.timeIntervalSince1970, measurement.end.timeIntervalSince1970, measurement.sourceID, device,
                now.timeIntervalSince1970,
            ])
        return db.changesCount > 0
    }
}
