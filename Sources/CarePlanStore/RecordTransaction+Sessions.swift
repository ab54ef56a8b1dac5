import Foundation
import GRDB

/// The care app's browser sessions, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordSessions: RecordPart {
    let record: RecordTransaction
}

extension RecordSessions {
    /// The session `id`, ended or not.
    public func session(_ id: String) throws -> WebSession? {
        try db.row("SELECT * FROM web_session WHERE id = ?", arguments: [id]).map(WebSession.init(row:))
    }

    /// The sessions whose id starts with `prefix` (lowercase hex digits).
    public func sessions(startingWith prefix: String) throws -> [WebSession] {
        try db.rows("SELECT * FROM web_session WHERE substr(id, 1, ?) = ?", arguments: [prefix.count, prefix]).map(WebSession.init(row:))
    }

    /// Keeps a new session `id` signed in now with `access`, until `expiresAt`.
    public func keep(_ id: String, access: WebAccess, name: String, expiresAt: Date) throws -> WebSession {
        let instant = now.timeIntervalSince1970
        try db.run(
            "INSERT INTO web_session (id, access, name, signed_in_at, expires_at, last_seen) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [id, access.rawValue, name, instant, expiresAt.timeIntervalSince1970, instant])
        return try session(id)!
    }

    /// Keeps now as when the session `id` was last seen.
    public func keepSeen(_ id: String) throws {
        try db.run("UPDATE web_session SET last_seen = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
    }

    /// Keeps the session `id` ended from now on.
    public func keepEnded(_ id: String) throws {
        try db.run("UPDATE web_session SET revoked_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
    }
}
