import Foundation

/// A patient's health record, connected by a standalone launch: the server, the patient it
/// gave as context, the scopes it granted and the tokens. It prints without its tokens, and
/// is kept only sealed (``TokenVault``).
public struct HealthRecordConnection: Codable, Sendable, CustomStringConvertible {
    /// The FHIR server's base URL, without a final slash.
    public var server: String
    public var clientID: String
    /// The confidential client's key (``HealthRecordApp/keyFile``), which refreshes and
    /// revocations are signed with.
    var keyFile: String?
    var tokenEndpoint: String
    var revocationEndpoint: String?
    /// The patient the server gave as the launch's context: the record's patient.
    public var patient: String?
    /// The scopes the server granted, which may be fewer than those asked for.
    public var grantedScope: String
    var accessToken: String
    var refreshToken: String?
    /// When the access token expires, if the server said.
    public var expiresAt: Date?
    public var connectedAt: Date
    /// Why the person must sign in again, once a refresh was refused.
    public var signInNeeded: String?

    public var description: String {
        "health record at \(server), patient \(patient ?? "not given"), scopes \(grantedScope)"
    }

    /// Whether a refresh token was granted (`offline_access`).
    public var canRefresh: Bool { refreshToken != nil }

    /// Its authorization server, asked as this client with `requests`.
    func authorizationServer(_ requests: OAuthRequests) -> HealthRecordServer {
        HealthRecordServer(tokenEndpoint: tokenEndpoint, requests: requests, clientID: clientID, keyFile: keyFile)
    }
}
