import Foundation
import Logging
import Clocks

/// Authorizes requests to the connected health record with the person's access token: the
/// kept one, refreshed a minute before it expires (or when the server refuses it) and kept
/// sealed again. A refused refresh is kept as "sign in again", said in the log and to
/// `signInNeeded`, and fails every request after it until the person connects again.
public actor HealthRecordAuthorizer: RequestAuthorizer {
    private let vault: TokenVault
    private let requests: OAuthRequests
    private let clock: any WallClock
    private let logger: Logger
    private let signInNeeded: @Sendable (String) -> Void

    /// How long before its expiry a token is refreshed.
    static let margin: TimeInterval = 60

    public init(
        vault: TokenVault, requests: OAuthRequests, clock: any WallClock = .system, logger: Logger,
        signInNeeded: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.vault = vault
        self.requests = requests
        self.clock = clock
        self.logger = logger
        self.signInNeeded = signInNeeded
    }

    public func authorization(renewing: Bool) async throws(FHIRExportError) -> String? {
        let kept: HealthRecordConnection?
        do {
            kept = try vault.connection()
        } catch {
            throw .unauthorized(url: vault.directory, reason: "\(error)")
        }
        guard let connection = kept else { throw .unauthorized(url: vault.directory, reason: HealthRecordError.notConnected.description) }
        if let reason = connection.signInNeeded {
            throw .unauthorized(url: connection.server, reason: HealthRecordError.signInAgain(reason).description)
        }
        let due = connection.expiresAt.map { clock.now >= $0.addingTimeInterval(-Self.margin) } ?? false
        if !renewing && !due { return "Bearer \(connection.accessToken)" }
        return "Bearer \(try await refreshedOnce(connection).accessToken)"
    }

    /// `connection` refreshed, by the refresh under way if there is one: callers that find
    /// the token due while the actor awaits the server must not spend the refresh token twice.
    private func refreshedOnce(_ connection: HealthRecordConnection) async throws(FHIRExportError) -> HealthRecordConnection {
        let refresh = refreshing ?? Task { await self.refreshed(connection) }
        refreshing = refresh
        defer { if refreshing == refresh { refreshing = nil } }
        return try await refresh.value.get()
    }

    private var refreshing: Task<Result<HealthRecordConnection, FHIRExportError>, Never>?

    /// `connection` with new tokens, kept; a refused refresh kept as "sign in again".
    private func refreshed(_ kept: HealthRecordConnection) async -> Result<HealthRecordConnection, FHIRExportError> {
        var connection = kept
        do throws(HealthRecordError) {
            try await refresh(&connection)
            return .success(connection)
        } catch .signInAgain(let reason) {
            connection.signInNeeded = reason
            try? vault.keep(connection)
            logger.warning("the health record refused to refresh its access: sign in again", metadata: [
                "server": "\(connection.server)", "reason": "\(reason)",
            ])
            signInNeeded(reason)
            return .failure(.unauthorized(url: connection.tokenEndpoint, reason: HealthRecordError.signInAgain(reason).description))
        } catch .unreachable(let url, let detail) {
            return .failure(.unreachable(url: url, attempts: 1, detail: detail))
        } catch {
            return .failure(.unauthorized(url: connection.tokenEndpoint, reason: error.description))
        }
    }

    /// New tokens for `connection` with its refresh token, kept.
    private func refresh(_ connection: inout HealthRecordConnection) async throws(HealthRecordError) {
        guard let refreshToken = connection.refreshToken else { throw .signInAgain("the access expired and no refresh token was granted") }
        let started = clock.now
        let token = try await connection.authorizationServer(requests).token(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], now: started, refusal: HealthRecordError.signInAgain)
        connection.accessToken = token.access_token
        connection.refreshToken = token.refresh_token ?? refreshToken
        connection.expiresAt = token.expires_in.map { started.addingTimeInterval(TimeInterval($0)) }
        connection.grantedScope = token.scope ?? connection.grantedScope
        try vault.keep(connection)
        logger.info("refreshed the health record's access", metadata: [
            "server": "\(connection.server)", "expiresAt": "\(connection.expiresAt.map { "\($0)" } ?? "not said")",
        ])
    }
}

extension TokenVault {
    /// Revokes the kept connection's tokens where the server offers revocation, then forgets
    /// them; whether the server said it revoked them (`nil`: it offers no revocation).
    public func disconnect(requests: OAuthRequests, now: Date = Date()) async throws(HealthRecordError) -> Bool? {
        guard let connection = try self.connection() else { throw .notConnected }
        var revoked: Bool?
        if let endpoint = connection.revocationEndpoint {
            let server = connection.authorizationServer(requests)
            var all = true
            if let refresh = connection.refreshToken {
                all = await server.revoke(refresh, hint: "refresh_token", at: endpoint, now: now) && all
            }
            all = await server.revoke(connection.accessToken, hint: "access_token", at: endpoint, now: now) && all
            revoked = all
        }
        try forget()
        return revoked
    }
}
