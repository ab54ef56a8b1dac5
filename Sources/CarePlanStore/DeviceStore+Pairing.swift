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
    /// A used or expired code is remembered this long, to say so rather than "wrong code".
    static let pairingMemory: TimeInterval = 24 * 3600

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

    /// The roles of codes that pair a companion, as SQL (a browser's sign-in codes share the
    /// table, but never pair a device, and count their wrong codes apart).
    static let deviceRoles = DeviceRole.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
}
