import CarePlan
import Foundation
import GRDB

/// A pairing code the primary has issued and may still recognize.
public struct PairingCandidate: Sendable, Hashable {
    public var id: Int
    /// The code's characters, as the proof keys them.
    public var code: String
}

/// A one-time code still open: a device's pairing code or a browser's sign-in code.
public struct OpenCode: Sendable, Hashable {
    /// The name it is shown again by (never its row id, which is sequential).
    public var handle: String
    /// Its characters, as typed.
    public var code: String
    /// A ``DeviceRole``'s or a `WebAccess`'s raw value.
    public var role: String
    public var mayRecord: Bool
    public var expiresAt: Date
}

/// Why the primary refuses a pairing attempt.
public enum PairingRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case noOpenCode
    case wrongCode(attemptsLeft: Int)
    case locked
    case expired
    case used
    case wrongRole(codeRole: DeviceRole, deviceRole: DeviceRole)
    case revoked

    public var description: String {
        switch self {
        case .noOpenCode: "no pairing code is open on this primary"
        case .wrongCode(let left): "wrong pairing code (\(left) attempt\(left == 1 ? "" : "s") left)"
        case .locked: "too many wrong codes: pairing is locked until a new code is made"
        case .expired: "this pairing code has expired"
        case .used: "this pairing code was already used"
        case .wrongRole(let codeRole, let deviceRole): "this code pairs a \(codeRole.rawValue), not a \(deviceRole.rawValue)"
        case .revoked: "this device was revoked and cannot pair again with the same identity"
        }
    }
}

extension DeviceStore {
    /// Wrong pairing codes allowed across the open pairing codes before pairing locks.
    public static let pairingAttempts = 5

    /// Opens a one-time pairing code for a device of `role`, valid until `expiresAt`; returns
    /// its handle, which shows it again to the session `shownTo` only. A household device
    /// paired with a `standby` code keeps a copy of the store.
    @discardableResult
    @_spi(CareCore) public func openPairingCode(
        _ code: String, role: DeviceRole, mayRecord: Bool, standby: Bool = false, shownTo: String? = nil, expiresAt: Date
    ) async throws(CarePlanStoreError) -> String {
        try await openCode(
            code, role: role.rawValue, mayRecord: mayRecord || role != .household, standby: standby && role == .household,
            shownTo: shownTo, expiresAt: expiresAt)
    }

    /// The code `handle` names while it is open at `now` (unused, not locked, not expired),
    /// to show it again to the care app's session `session` if that session made it; a
    /// standby code never (the care app cannot make one). Judged on the clock the code's
    /// expiry was set by.
    public func openCode(_ handle: String, shownTo session: String, at now: Date) async throws(CarePlanStoreError) -> OpenCode? {
        let now = now.timeIntervalSince1970
        return try await read { db in
            try db.row("""
                SELECT code, role, may_record, expires_at FROM pairing_code
                WHERE handle = ? AND shown_to = ? AND standby = 0
                    AND code IS NOT NULL AND used_at IS NULL AND locked_at IS NULL AND expires_at > ?
                """, arguments: [handle, session, now]).map { row in
                OpenCode(handle: handle, code: row[0], role: row[1], mayRecord: row[2], expiresAt: Date(timeIntervalSince1970: row[3]))
            }
        }
    }

    /// The codes an attempt may match: open ones, and recently used or expired ones.
    public func pairingCandidates() async throws(CarePlanStoreError) -> [PairingCandidate] {
        let since = now().addingTimeInterval(-Self.pairingMemory).timeIntervalSince1970
        return try await read { db in
            try db.rows(
                """
                SELECT id, code FROM pairing_code
                WHERE code IS NOT NULL AND locked_at IS NULL AND created_at >= ? AND role IN (\(Self.deviceRoles))
                ORDER BY id DESC LIMIT 8
                """,
                arguments: [since]
            ).map { PairingCandidate(id: $0[0], code: $0[1]) }
        }
    }

    /// Judges an attempt whose proof matched the code `codeID` (or none): pairs the device,
    /// or counts a failure against every open code and locks those that reach the limit.
    @_spi(CareCore) public func redeemPairing(
        codeID: Int?, deviceID: String, name: String, role: DeviceRole
    ) async throws(CarePlanStoreError) -> Result<PairedDevice, PairingRefusal> {
        try await write { db in
            let now = now()
            if let revoked: Double = try db.value(Double.self, "SELECT revoked_at FROM device WHERE id = ?", arguments: [deviceID]),
               revoked > 0 {
                return .failure(.revoked)
            }
            guard let codeID, let code = try db.row("SELECT * FROM pairing_code WHERE id = ?", arguments: [codeID]) else {
                return .failure(try countFailure(db, of: Self.deviceRoles, limit: Self.pairingAttempts, at: now))
            }
            if (code["used_at"] as Double?) != nil { return .failure(.used) }
            if (code["locked_at"] as Double?) != nil { return .failure(.locked) }
            if now.timeIntervalSince1970 >= code["expires_at"] { return .failure(.expired) }
            guard let codeRole = DeviceRole(rawValue: code["role"]) else {
                return .failure(try countFailure(db, of: Self.deviceRoles, limit: Self.pairingAttempts, at: now))
            }
            guard codeRole == role else { return .failure(.wrongRole(codeRole: codeRole, deviceRole: role)) }
            try db.run("UPDATE pairing_code SET used_at = ?, used_by = ? WHERE id = ?",
                       arguments: [now.timeIntervalSince1970, deviceID, codeID])
            try db.run("""
                INSERT INTO device (id, name, role, may_record, standby, paired_at, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, role = excluded.role, may_record = excluded.may_record,
                    standby = excluded.standby
                """, arguments: [deviceID, name, role.rawValue, code["may_record"] as Bool, code["standby"] as Bool, now.timeIntervalSince1970,
                                 now.timeIntervalSince1970])
            _ = try StoreChange(kind: .devicePaired, pairedDevice: deviceID, device: deviceID, committedAt: now).append(to: db)
            return .success(try PairedDevice(row: try db.row("SELECT * FROM device WHERE id = ?", arguments: [deviceID])!))
        }
    }

    /// The roles of codes that pair a companion, as SQL (a browser's sign-in codes share the
    /// table, but never pair a device, and count their wrong codes apart).
    static let deviceRoles = DeviceRole.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
}
