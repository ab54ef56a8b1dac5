import Foundation
import GRDB

/// The one-time codes a companion pairs with and a browser signs in with share one table:
/// what stores them and counts wrong attempts is the same for both.
extension StorePart {
    /// A used or expired code is remembered this long, to say so rather than "wrong code".
    static var pairingMemory: TimeInterval { 24 * 3600 }

    /// Stores a code of `role` (a device's or a browser's) and returns its handle: 32 random
    /// hex digits that name it to ``DeviceStore/openCode(_:shownTo:at:)`` for the session
    /// `shownTo` (the care app's session that made it) and nobody else.
    func openCode(
        _ code: String, role: String, mayRecord: Bool, standby: Bool = false, shownTo: String? = nil, expiresAt: Date
    ) async throws(CarePlanStoreError) -> String {
        var random = SystemRandomNumberGenerator()
        let handle = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &random)) }.joined()
        return try await write { db in
            try db.run(
                """
                INSERT INTO pairing_code (code, role, may_record, standby, handle, shown_to, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                arguments: [code, role, mayRecord, standby, handle, shownTo, now().timeIntervalSince1970, expiresAt.timeIntervalSince1970])
            return handle
        }
    }

    /// Counts a wrong code against every open code of `roles` (SQL, as ``deviceRoles``):
    /// wrong sign-in codes never lock pairing, nor wrong pairing codes sign-in. Codes that
    /// reach `limit` are locked and their characters forgotten.
    func countFailure(_ db: Database, of roles: String, limit: Int, at now: Date) throws -> PairingRefusal {
        let open = "code IS NOT NULL AND used_at IS NULL AND locked_at IS NULL AND expires_at > ? AND role IN (\(roles))"
        let instant = now.timeIntervalSince1970
        guard let failures = try db.value(Int.self, "SELECT MAX(failures) + 1 FROM pairing_code WHERE \(open)", arguments: [instant])
        else {
            let locked = try db.value(
                Bool.self, "SELECT locked_at IS NOT NULL FROM pairing_code WHERE role IN (\(roles)) ORDER BY id DESC LIMIT 1")
            return locked == true ? .locked : .noOpenCode
        }
        try db.run("UPDATE pairing_code SET failures = failures + 1 WHERE \(open)", arguments: [instant])
        guard failures >= limit else { return .wrongCode(attemptsLeft: limit - failures) }
        try db.run("UPDATE pairing_code SET locked_at = ?, code = NULL WHERE \(open)", arguments: [instant, instant])
        return .locked
    }
}
