import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Waiting

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
    private let requestTimeout: Duration
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
        self.requestTimeout = requestTimeout
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
        let url = "\(fhirBase)/.well-known/smart-configuration"
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let (status, body) = try await exchange(request, url: url)
        guard status == 200, let configuration = try? JSONDecoder().decode(SMARTConfiguration.self, from: body) else {
            throw .unauthorized(url: url, reason: "no SMART configuration (HTTP \(status))")
        }
        if let methods = configuration.token_endpoint_auth_methods_supported, !methods.contains("private_key_jwt") {
            throw .unauthorized(url: url, reason: "the server does not take private_key_jwt client authentication")
        }
        if let algorithms = configuration.token_endpoint_auth_signing_alg_values_supported, !algorithms.contains("ES384") {
            throw .unauthorized(url: url, reason: "the server does not take ES384 signatures")
        }
        tokenEndpoint = configuration.token_endpoint
        return configuration.token_endpoint
    }

    private func obtainToken(at endpoint: String) async throws(FHIRExportError) -> TokenResponse {
        let assertion = try ClientAssertion.make(clientID: clientID, audience: endpoint, key: key, now: clock.now)
        let form = [
            ("grant_type", "client_credentials"), ("scope", scope),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", assertion),
        ]
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: form.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")))
        let (status, body) = try await exchange(request, url: endpoint)
        let refusal = try? JSONDecoder().decode(OAuthError.self, from: body)
        let reason = refusal.map { [$0.error, $0.error_description].compactMap { $0 }.joined(separator: ": ") }
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

    /// The status and body of `request`; a server that cannot be reached fails as one may pass.
    private func exchange(_ request: HTTPClientRequest, url: String) async throws(FHIRExportError) -> (Int, Data) {
        let timeout = TimeAmount(requestTimeout)
        let result: Result<(Int, Data), FHIRExportError> = await HTTPClient.withFailingFastClient(logger: logger) { client in
            do {
                let response = try await client.execute(request, timeout: timeout)
                let body = try await response.body.collect(upTo: 1 << 20)
                return .success((Int(response.status.code), Data(body.readableBytesView)))
            } catch {
                return .failure(.unreachable(url: url, attempts: 1, detail: HTTPClient.describe(error)))
            }
        }
        return try result.get()
    }

    private static func formEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}

/// The members of `.well-known/smart-configuration` a backend service reads.
private struct SMARTConfiguration: Decodable {
    var token_endpoint: String
    var token_endpoint_auth_methods_supported: [String]?
    var token_endpoint_auth_signing_alg_values_supported: [String]?
}

/// A token endpoint's success answer (RFC 6749 section 5.1).
private struct TokenResponse: Decodable {
    var access_token: String
    var token_type: String
    var expires_in: Int?
}

/// A token endpoint's error answer (RFC 6749 section 5.2).
private struct OAuthError: Decodable {
    var error: String
    var error_description: String?
}
