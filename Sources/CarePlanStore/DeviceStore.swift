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

    /// Revokes a paired device: it is refused from now on, and a primary serving it closes
    /// its connection when it sees the change.
    @discardableResult
    @_spi(CareCore) public func revoke(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await write { db in
            guard let row = try db.row("SELECT revoked_at FROM device WHERE id = ?", arguments: [id]) else {
                throw CarePlanStoreError.unknownDevice(id)
            }
            guard (row[0] as Double?) == nil else { return nil }
            let now = now()
            try db.run("UPDATE device SET revoked_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
            return try StoreChange(kind: .deviceRevoked, pairedDevice: id, device: device, committedAt: now).append(to: db)
        }
    }

    /// Notes when devices were last seen (connected or disconnected), all in one commit.
    /// A time earlier than the one recorded is ignored.
    public func recordSeen(_ seen: [String: Date]) async throws(CarePlanStoreError) {
        guard !seen.isEmpty else { return }
        try await write { db in
            for (id, date) in seen {
                try db.run(
                    "UPDATE device SET last_seen = max(coalesce(last_seen, 0), ?) WHERE id = ?",
                    arguments: [date.timeIntervalSince1970, id])
            }
        }
    }
}
