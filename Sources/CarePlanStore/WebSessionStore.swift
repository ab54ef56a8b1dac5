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
    /// Wrong sign-in codes allowed across the open sign-in codes, from every browser
    /// together, before web sign-in locks (the care app also limits each source).
    public static let signInAttempts = 20
    /// Opens a one-time code that signs a browser in with `access`, valid until `expiresAt`;
    /// returns its handle, which shows it again to the session `shownTo` only. Wrong sign-in
    /// codes count toward a lock of their own (``signInAttempts``), never toward pairing's.
    @discardableResult
    @_spi(CareCore) public func openSignInCode(
        _ code: String, access: WebAccess, shownTo: String? = nil, expiresAt: Date
    ) async throws(CarePlanStoreError) -> String {
        try await openCode(code, role: access.rawValue, mayRecord: access.mayRecord, shownTo: shownTo, expiresAt: expiresAt)
    }

    /// The roles of codes that sign a browser in, as SQL.
    static let signInRoles = WebAccess.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// Signs a browser in with `code` (its characters, normalized): on success the code is
    /// used up and a session stored under `sessionID`, valid for `lifetime`.
    @_spi(CareCore) public func signIn(
        code: String, sessionID id: String, name: String, lifetime: TimeInterval
    ) async throws(CarePlanStoreError) -> Result<WebSession, PairingRefusal> {
        try await write { db in
            let now = now()
            let since = now.addingTimeInterval(-Self.pairingMemory).timeIntervalSince1970
            guard let row = try db.row(
                "SELECT * FROM pairing_code WHERE code = ? AND role IN (\(Self.signInRoles)) AND created_at >= ? ORDER BY id DESC LIMIT 1",
                arguments: [code, since])
            else { return .failure(try countFailure(db, of: Self.signInRoles, limit: Self.signInAttempts, at: now)) }
            if (row["used_at"] as Double?) != nil { return .failure(.used) }
            if (row["locked_at"] as Double?) != nil { return .failure(.locked) }
            if now.timeIntervalSince1970 >= row["expires_at"] { return .failure(.expired) }
            try db.run("UPDATE pairing_code SET used_at = ?, used_by = ? WHERE id = ?",
                       arguments: [now.timeIntervalSince1970, id, row["id"] as Int])
            try db.run(
                "INSERT INTO web_session (id, access, name, signed_in_at, expires_at, last_seen) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [id, row["role"] as String, name, now.timeIntervalSince1970, now.addingTimeInterval(lifetime).timeIntervalSince1970,
                            now.timeIntervalSince1970])
            return .success(try WebSession(row: try db.row("SELECT * FROM web_session WHERE id = ?", arguments: [id])!))
        }
    }

    /// The session `id` if it is still valid. Its last-seen time is written at most once a
    /// minute, so that pages do not each cost a commit.
    public func session(_ id: String) async throws(CarePlanStoreError) -> WebSession? {
        let now = now()
        guard let session = try await read({ db in
            try db.row("SELECT * FROM web_session WHERE id = ?", arguments: [id]).map(WebSession.init(row:))
        }), session.isValid(at: now) else { return nil }
        if session.lastSeen.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            try await write { db in
                try db.run("UPDATE web_session SET last_seen = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
            }
        }
        return session
    }

    /// Ends the session `id` (signing out); nothing happens if it had ended.
    @_spi(CareCore) public func end(_ id: String) async throws(CarePlanStoreError) {
        try await write { db in
            try db.run("UPDATE web_session SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                       arguments: [now().timeIntervalSince1970, id])
        }
    }

    /// Every session, newest first, ended ones included.
    public func all() async throws(CarePlanStoreError) -> [WebSession] {
        try await read { db in
            try db.rows("SELECT * FROM web_session ORDER BY signed_in_at DESC").map(WebSession.init(row:))
        }
    }

    /// Ends the session whose id starts with `prefix` (at least 6 hex digits, naming one).
    /// Returns it, or `nil` if it had already ended.
    @_spi(CareCore) public func revoke(_ prefix: String) async throws(CarePlanStoreError) -> WebSession? {
        try await write { db in
            let prefix = prefix.lowercased()
            guard prefix.count >= 6, prefix.allSatisfy(\.isHexDigit) else {
                throw CarePlanStoreError.unknownWebSession(prefix)
            }
            let rows = try db.rows("SELECT * FROM web_session WHERE substr(id, 1, ?) = ?", arguments: [prefix.count, prefix])
            guard let row = rows.first else { throw CarePlanStoreError.unknownWebSession(prefix) }
            guard rows.count == 1 else {
                throw CarePlanStoreError.ambiguousDevice(prefix, matches: rows.map { String(($0["id"] as String).prefix(12)) })
            }
            let session = try WebSession(row: row)
            guard session.revokedAt == nil else { return nil }
            try db.run("UPDATE web_session SET revoked_at = ? WHERE id = ?", arguments: [now().timeIntervalSince1970, session.id])
            return session
        }
    }
}
