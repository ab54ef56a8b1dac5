import CarePlan
import Foundation
import GRDB

/// What a browser signed in to the care app may do.
public enum WebAccess: String, Sendable, Hashable, Codable, CaseIterable {
    /// The patient or a caregiver: records outcomes and manages devices.
    case caregiver = "browser"
    /// A household member: reads the plan and its history, changes nothing.
    case household = "household-browser"

    /// Whether a session of this kind may record outcomes and manage devices.
    public var mayRecord: Bool { self == .caregiver }
}

/// A browser signed in to the care app, known by the SHA-256 of its cookie's secret (the web
/// layer hashes; the store never sees the secret).
public struct WebSession: Sendable, Hashable {
    /// The SHA-256 of the session's secret, 64 lowercase hex digits.
    public var id: String
    public var access: WebAccess
    /// What the browser said it is, or the name given at sign-in.
    public var name: String
    public var signedInAt: Date
    public var expiresAt: Date
    public var lastSeen: Date?
    public var revokedAt: Date?

    /// The first 12 hex digits of the id: how a person names the session to revoke it.
    public var shortID: String { String(id.prefix(12)) }

    /// Whether it still lets its browser in at `now`.
    public func isValid(at now: Date) -> Bool { revokedAt == nil && now < expiresAt }

    init(row: Row) throws {
        let accessName: String = row["access"]
        guard let access = WebAccess(rawValue: accessName) else {
            throw CarePlanStoreError.database("unknown web session access \"\(accessName)\"")
        }
        id = row["id"]
        self.access = access
        name = row["name"]
        signedInAt = Date(timeIntervalSince1970: row["signed_in_at"])
        expiresAt = Date(timeIntervalSince1970: row["expires_at"])
        lastSeen = (row["last_seen"] as Double?).map(Date.init(timeIntervalSince1970:))
        revokedAt = (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
    }
}

extension WebSessionStore {
    /// The roles of codes that sign a browser in, as SQL.
    static let signInRoles = WebAccess.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The session `id` if it is still valid (the care core notes when it was seen).
    public func session(_ id: String) async throws(CarePlanStoreError) -> WebSession? {
        let now = now()
        return try await read { db in
            try db.row("SELECT * FROM web_session WHERE id = ?", arguments: [id]).map(WebSession.init(row:))
        }.flatMap { $0.isValid(at: now) ? $0 : nil }
    }

    /// Every session, newest first, ended ones included.
    public func all() async throws(CarePlanStoreError) -> [WebSession] {
        try await read { db in
            try db.rows("SELECT * FROM web_session ORDER BY signed_in_at DESC").map(WebSession.init(row:))
        }
    }
}
