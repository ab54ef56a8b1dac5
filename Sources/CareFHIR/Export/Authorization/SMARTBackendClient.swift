import Foundation
import Logging
import Clocks

/// SMART Backend Services for one FHIR server: finds the token endpoint in the server's
/// `.well-known/smart-configuration`, obtains access tokens with a signed client assertion
/// (client credentials grant, `private_key_jwt`, ES384), and renews a token shortly before
/// it expires, or at once when the server refuses it.
public actor SMARTBackendClient: RequestAuthorizer {
    /// What a backend service asks for by default: to write what CareSync exports.
    public static var defaultScope: String {
        "system/Patient.write system/Device.write system/Observation.write system/MedicationAdministration.write"
    }

    /// The FHIR server's base URL.
    public let fhirBase: String
    public let clientID: String
    public let scope: String
    private let key: SMARTSigningKey
    private let requests: OAuthRequests
    private let clock: any WallClock
    private let logger: Logger

    private var tokenEndpoint: String?
    private var current: (header: String, renewAt: Date?)?
    /// The access tokens obtained so far.
    public private(set) var tokensObtained = 0

    /// A client that asks for `scope` as `clientID`, signing with `key`. `clock` says when a
    /// token is due for renewal and dates the assertions.
    public init(
        fhirBase: String, clientID: String, key: SMARTSigningKey, scope: String = defaultScope, requestTimeout: Duration = .seconds(30),
        clock: any WallClock = .system,
        logger: Logger = Logger(label: "caresync.fhir", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.fhirBase = fhirBase.hasSuffix("/") ? String(fhirBase.dropLast()) : fhirBase
        self.clientID = clientID
        self.key = key
        self.scope = scope
        requests = OAuthRequests(timeout: requestTimeout, logger: logger)
        self.clock = clock
        self.logger = logger
    }

    /// `Bearer` and the current access token, obtained anew when it is due or `renewing`.
    public func authorization(renewing: Bool) async throws(FHIRExportError) -> String? {
        if !renewing, let current, current.renewAt.map({ clock.now < $0 }) ?? true { return current.header }
        current = nil
        let endpoint = try await discoverTokenEndpoint()
        let started = clock.now
        let token = try await obtainToken(at: endpoint)
        let lifetime = token.expires_in.map { Duration.seconds($0) }
        // Renewed a fifth of its lifetime (at most a minute) before it expires.
        current = ("Bearer \(token.access_token)", lifetime.map { started.addingTimeInterval(($0 - min(.seconds(60), $0 / 5)).inSeconds) })
        tokensObtained += 1
        logger.debug("obtained a SMART access token", metadata: [
            "tokenEndpoint": "\(endpoint)", "expiresIn": "\(token.expires_in.map(String.init) ?? "unknown")",
        ])
        return current?.header
    }

    /// The server's token endpoint, from its SMART configuration (read once).
    private func discoverTokenEndpoint() async throws(FHIRExportError) -> String {
        if let tokenEndpoint { return tokenEndpoint }
        let url = SMARTConfiguration.url(of: fhirBase)
        let (status, body) = try await answer(requests.get(url))
        guard status == 200, let configuration = try? JSONDecoder().decode(SMARTConfiguration.self, from: body),
              let endpoint = configuration.token_endpoint
        else {
            throw .unauthorized(url: url, reason: "no SMART configuration (HTTP \(status))")
        }
        if let methods = configuration.token_endpoint_auth_methods_supported, !methods.contains("private_key_jwt") {
            throw .unauthorized(url: url, reason: "the server does not take private_key_jwt client authentication")
        }
        if let algorithms = configuration.token_endpoint_auth_signing_alg_values_supported, !algorithms.contains("ES384") {
            throw .unauthorized(url: url, reason: "the server does not take ES384 signatures")
        }
        tokenEndpoint = endpoint
        return endpoint
    }

    private func obtainToken(at endpoint: String) async throws(FHIRExportError) -> TokenResponse {
        let assertion = try ClientAssertion.make(clientID: clientID, audience: endpoint, key: key, now: clock.now)
        let (status, body) = try await answer(requests.post(endpoint, form: [
            ("grant_type", "client_credentials"), ("scope", scope),
            ("client_assertion_type", ClientAssertion.type), ("client_assertion", assertion),
        ]))
        let reason = OAuthError.from(body)?.text
        switch status {
        case 200:
            guard let token = try? JSONDecoder().decode(TokenResponse.self, from: body), token.token_type.lowercased() == "bearer" else {
                throw .unauthorized(url: endpoint, reason: "the answer holds no bearer access token")
            }
            return token
        case 408, 429, 500..<600: throw .unavailable(url: endpoint, attempts: 1, status: status, outcome: reason)
        default: throw .unauthorized(url: endpoint, reason: reason ?? "HTTP \(status)")
        }
    }

    /// A request's status and body; a server that cannot be reached fails as one may pass.
    private func answer(_ result: Result<(status: Int, body: Data), OAuthUnreachable>) throws(FHIRExportError) -> (Int, Data) {
        switch result {
        case .success(let answer): return answer
        case .failure(let unreachable): throw .unreachable(url: unreachable.url, attempts: 1, detail: unreachable.detail)
        }
    }
}
