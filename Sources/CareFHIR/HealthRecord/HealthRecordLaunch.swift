import Foundation

/// One standalone patient launch (SMART App Launch, authorization code with PKCE), from the
/// redirect to the authorization server until its callback: what the callback is checked
/// against and what the code is exchanged with. Its verifier is a secret, kept sealed
/// (``PendingLaunches``) and never shown.
public struct HealthRecordLaunch: Codable, Sendable, CustomStringConvertible {
    /// The FHIR server's base URL, without a final slash: the launch's `aud`.
    public var server: String
    public var clientID: String
    /// A confidential client's key (``HealthRecordApp/keyFile``); `nil` for a public client.
    var keyFile: String?
    /// The exact redirect URI on the primary's web app, registered with the server.
    public var redirectURI: String
    /// Unguessable, single use: the callback must bring it back.
    public var state: String
    var verifier: String
    /// The scopes asked for.
    public var scope: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var revocationEndpoint: String?
    /// The session of the care app that started it (a hash of its cookie), which alone may
    /// finish it; `nil` for one started by `caresync fhir connect`, finished in any browser.
    public var session: String?
    public var startedAt: Date
    /// How it ended, once it has: for `caresync fhir connect`, which waits for it.
    public var outcome: Outcome?

    /// How a launch ended.
    public enum Outcome: Codable, Sendable, Hashable {
        /// Its callback came and is being finished.
        case finishing
        case connected(patient: String?)
        case failed(String)
    }

    /// How long a launch waits for its callback.
    public static let lifetime: TimeInterval = 600

    public var description: String { "launch at \(server) for client \(clientID)" }

    /// Reads the server's SMART configuration and prepares a launch: the URL to send the
    /// person to is ``authorizeURL``.
    ///
    /// - Throws: ``HealthRecordError/insecureEndpoint(url:role:)`` when the server or an
    ///   endpoint is not `https` (plain `http` only to this machine), checked before the
    ///   server is asked; ``HealthRecordError/noSMARTLaunch(server:reason:)`` when the server
    ///   has no authorization and token endpoint or does not take PKCE's `S256`;
    ///   ``HealthRecordError/unreachable(url:detail:)``.
    public static func begin(
        server: String, app: HealthRecordApp, session: String?, now: Date, requests: OAuthRequests
    ) async throws(HealthRecordError) -> HealthRecordLaunch {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        try SignInEndpoint.check(base, as: .server)
        let configuration = try await HealthRecordServer.configuration(of: base, requests: requests)
        guard let authorize = configuration.authorization_endpoint, let token = configuration.token_endpoint else {
            throw .noSMARTLaunch(server: base, reason: "its SMART configuration names no authorization and token endpoints")
        }
        try SignInEndpoint.check(authorize, as: .authorization)
        try SignInEndpoint.check(token, as: .token)
        if let revocation = configuration.revocation_endpoint { try SignInEndpoint.check(revocation, as: .revocation) }
        guard configuration.code_challenge_methods_supported?.contains("S256") == true else {
            throw .noSMARTLaunch(server: base, reason: "it does not list S256 in code_challenge_methods_supported (PKCE)")
        }
        return HealthRecordLaunch(
            server: base, clientID: app.clientID, keyFile: app.keyFile, redirectURI: app.redirectURI, state: randomToken(), verifier: PKCE.random().verifier,
            scope: LaunchScopes.asked(of: configuration), authorizationEndpoint: authorize, tokenEndpoint: token,
            revocationEndpoint: configuration.revocation_endpoint, session: session, startedAt: now)
    }

    /// The authorization endpoint's host: where the person signs in, shown before they go.
    public var authorizationHost: String { URL(string: authorizationEndpoint)?.host ?? authorizationEndpoint }

    /// Where to send the person: the authorization endpoint with the launch's parameters.
    public var authorizeURL: String {
        let parameters = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
            ("aud", server), ("code_challenge", PKCE(verifier: verifier).challenge), ("code_challenge_method", "S256"),
        ]
        return authorizationEndpoint + (authorizationEndpoint.contains("?") ? "&" : "?") + OAuthRequests.formEncoded(parameters)
    }

    /// Whether the launch is too old for its callback at `now`.
    public func hasExpired(at now: Date) -> Bool { now.timeIntervalSince(startedAt) > Self.lifetime }

    /// Exchanges the callback's `code` for tokens: the verifier proves the launch, and a
    /// confidential client its key.
    ///
    /// - Throws: ``HealthRecordError/exchangeFailed(_:)`` with the server's reason.
    public func finish(code: String, now: Date, requests: OAuthRequests) async throws(HealthRecordError) -> HealthRecordConnection {
        let authorizationServer = HealthRecordServer(tokenEndpoint: tokenEndpoint, requests: requests, clientID: clientID, keyFile: keyFile)
        let token = try await authorizationServer.token(
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)],
            now: now, refusal: HealthRecordError.exchangeFailed)
        return HealthRecordConnection(
            server: server, clientID: clientID, keyFile: keyFile, tokenEndpoint: tokenEndpoint, revocationEndpoint: revocationEndpoint,
            patient: token.patient, grantedScope: token.scope ?? scope, accessToken: token.access_token, refreshToken: token.refresh_token,
            expiresAt: token.expires_in.map { now.addingTimeInterval(TimeInterval($0)) }, connectedAt: now)
    }
}
