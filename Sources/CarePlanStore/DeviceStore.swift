import CarePlan
import Foundation
import GRDB

/// A companion paired with this primary, known by its certificate's fingerprint.
public struct PairedDevice: Sendable, Hashable, Codable {
    /// The fingerprint: SHA-256 of the device's certificate, 64 lowercase hex digits.
    public var id: String
    public var name: String
    public var role: DeviceRole
    /// Whether the device may record outcomes (always for watches and widgets).
    public var mayRecord: Bool
    /// Whether it keeps a standby copy of the store (a household device paired with
    /// `--standby`): it receives the store's pages and the primary's identity.
    public var standby: Bool
    public var pairedAt: Date
    /// When it last connected or disconnected.
    public var lastSeen: Date?
    public var revokedAt: Date?

    public var isRevoked: Bool { revokedAt != nil }

    init(row: Row) throws {
        let roleName: String = row["role"]
        guard let role = DeviceRole(rawValue: roleName) else {
            throw CarePlanStoreError.database("unknown device role \"\(roleName)\"")
        }
        id = row["id"]
        name = row["name"]
        self.role = role
        mayRecord = row["may_record"]
        standby = row["standby"]
        pairedAt = Date(timeIntervalSince1970: row["paired_at"])
        lastSeen = (row["last_seen"] as Double?).map(Date.init(timeIntervalSince1970:))
        revokedAt = (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
    }
}

extension DeviceStore {
    /// Every paired device, revoked ones included, in pairing order.
    public func all() async throws(CarePlanStoreError) -> [PairedDevice] {
        try await read { db in try db.rows("SELECT * FROM device ORDER BY paired_at, id").map(PairedDevice.init(row:)) }
    }

    /// The device with fingerprint `id`, if it was ever paired.
    public func device(_ id: String) async throws(CarePlanStoreError) -> PairedDevice? {
        try await read { db in try db.row("SELECT * FROM device WHERE id = ?", arguments: [id]).map(PairedDevice.init(row:)) }
    }

    /// The device that `text` names: its fingerprint, or a unique beginning of it, in any
    /// case and with or without the dashes people read it with.
    public func device(named text: String) async throws(CarePlanStoreError) -> PairedDevice {
        let prefix = text.lowercased().filter { $0 != "-" && $0 != " " }
        let matches = try await all().filter { !prefix.isEmpty && $0.id.hasPrefix(prefix) }
        guard matches.count == 1 else {
            throw matches.isEmpty ? .unknownDevice(text) : .ambiguousDevice(text, matches: matches.map(\.id))
        }
        return matches[0]
    }
}
