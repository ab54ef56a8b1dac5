import CarePlan
import Foundation
import GRDB

/// A one-time code as kept: a device's pairing code or a browser's sign-in code.
@_spi(CareCore) public struct IssuedCode: Sendable {
    public var id: Int
    /// A ``DeviceRole``'s or a ``WebAccess``'s raw value.
    public var role: String
    public var mayRecord: Bool
    public var standby: Bool
    public var isUsed: Bool
    public var isLocked: Bool
    public var expiresAt: Date

    init(row: Row) {
        id = row["id"]
        role = row["role"]
        mayRecord = row["may_record"]
        standby = row["standby"]
        isUsed = (row["used_at"] as Double?) != nil
        isLocked = (row["locked_at"] as Double?) != nil
        expiresAt = Date(timeIntervalSince1970: row["expires_at"])
    }
}

/// The codes a wrong attempt counts against: pairing codes and sign-in codes share a table
/// but never each other's count.
@_spi(CareCore) public enum CodeFamily: Sendable {
    case pairing, signIn

    var roles: String { self == .pairing ? DeviceStore.deviceRoles : WebSessionStore.signInRoles }
}

/// Pairing and sign-in codes and paired devices, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordAccess: RecordPart {
    let record: RecordTransaction
}

extension RecordAccess {
    /// Keeps a new code and returns its handle: 32 random hex digits that name it to
    /// ``DeviceStore/openCode(_:shownTo:at:)`` for the session `shownTo` and nobody else.
    public func keepCode(
        _ code: String, role: String, mayRecord: Bool, standby: Bool, shownTo: String?, expiresAt: Date
    ) throws -> String {
        var random = SystemRandomNumberGenerator()
        let handle = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &random)) }.joined()
        try db.run(
            """
            INSERT INTO pairing_code (code, role, may_record, standby, handle, shown_to, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            arguments: [code, role, mayRecord, standby, handle, shownTo, now.timeIntervalSince1970, expiresAt.timeIntervalSince1970])
        return handle
    }

    /// The code kept as `id`, if any.
    public func code(_ id: Int) throws -> IssuedCode? {
        try db.row("SELECT * FROM pairing_code WHERE id = ?", arguments: [id]).map(IssuedCode.init(row:))
    }

    /// The newest code of `family` with these characters that is still remembered (a used
    /// or expired code is, for a day, to say so rather than "wrong code").
    public func newestCode(_ characters: String, of family: CodeFamily) throws -> IssuedCode? {
        try db.row(
            "SELECT * FROM pairing_code WHERE code = ? AND role IN (\(family.roles)) AND created_at >= ? ORDER BY id DESC LIMIT 1",
            arguments: [characters, now.addingTimeInterval(-DeviceStore.pairingMemory).timeIntervalSince1970]
        ).map(IssuedCode.init(row:))
    }

    /// Marks the code `id` used by `holder` (a device's fingerprint or a session's id).
    public func useCode(_ id: Int, by holder: String) throws {
        try db.run("UPDATE pairing_code SET used_at = ?, used_by = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, holder, id])
    }

    /// The most wrong attempts counted against an open code of `family` (unused, unlocked,
    /// not expired), or `nil` when none is open.
    public func mostWrongAttempts(amongOpen family: CodeFamily) throws -> Int? {
        try db.value(Int.self, "SELECT MAX(failures) FROM pairing_code WHERE \(Self.open(family))", arguments: [now.timeIntervalSince1970])
    }

    /// Counts one more wrong attempt against every open code of `family`.
    public func countWrongAttempt(amongOpen family: CodeFamily) throws {
        try db.run("UPDATE pairing_code SET failures = failures + 1 WHERE \(Self.open(family))", arguments: [now.timeIntervalSince1970])
    }

    /// Locks every open code of `family` and forgets its characters.
    public func lockOpenCodes(of family: CodeFamily) throws {
        let instant = now.timeIntervalSince1970
        try db.run("UPDATE pairing_code SET locked_at = ?, code = NULL WHERE \(Self.open(family))", arguments: [instant, instant])
    }

    /// Whether the newest code of `family` was locked.
    public func newestCodeIsLocked(of family: CodeFamily) throws -> Bool {
        try db.value(
            Bool.self, "SELECT locked_at IS NOT NULL FROM pairing_code WHERE role IN (\(family.roles)) ORDER BY id DESC LIMIT 1") == true
    }

    private static func open(_ family: CodeFamily) -> String {
        "code IS NOT NULL AND used_at IS NULL AND locked_at IS NULL AND expires_at > ? AND role IN (\(family.roles))"
    }

    /// The device `id`, if it was ever paired.
    public func device(_ id: String) throws -> PairedDevice? {
        try db.row("SELECT * FROM device WHERE id = ?", arguments: [id]).map(PairedDevice.init(row:))
    }

    /// Keeps `id` as paired now (its name, role and grants replaced if it paired before), with
    /// its change.
    public func keepPaired(
        _ id: String, name: String, role: DeviceRole, mayRecord: Bool, standby: Bool
    ) throws -> PairedDevice {
        let instant = now.timeIntervalSince1970
        try db.run("""
            INSERT INTO device (id, name, role, may_record, standby, paired_at, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, role = excluded.role, may_record = excluded.may_record,
                standby = excluded.standby
            """, arguments: [id, name, role.rawValue, mayRecord, standby, instant, instant])
        _ = try StoreChange(kind: .devicePaired, pairedDevice: id, device: id, committedAt: now).append(to: db)
        return try device(id)!
    }

    /// Keeps the device `id` revoked from now on, with its change (`device` revoked it).
    public func keepRevoked(_ id: String, device: String) throws -> StoreChange {
        try db.run("UPDATE device SET revoked_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        return try StoreChange(kind: .deviceRevoked, pairedDevice: id, device: device, committedAt: now).append(to: db)
    }

    /// Keeps `instant` as when the device `id` was last seen.
    public func keepSeen(device id: String, at instant: Date) throws {
        try db.run("UPDATE device SET last_seen = ? WHERE id = ?", arguments: [instant.timeIntervalSince1970, id])
    }
}
