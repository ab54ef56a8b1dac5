import Foundation

/// A health record's authorization server as CareSync's client uses it: its token endpoint
/// (codes, refreshes) and its revocation endpoint. A public client names itself by
/// `client_id`; a confidential one (`keyFile`) also proves itself with an assertion signed
/// for the token endpoint (`private_key_jwt`, as in SMART Backend Services).
struct HealthRecordServer: Sendable {
    var tokenEndpoint: String
    var requests: OAuthRequests
    var clientID: String
    /// The confidential client's P-384 private key (PEM, as `caresync fhir smart-key` makes it).
    var keyFile: String?

    /// The SMART configuration of the FHIR server at `base`.
    static func configuration(of base: String, requests: OAuthRequests) async throws(HealthRecordError) -> SMARTConfiguration {
        let url = SMARTConfiguration.url(of: base)
        let (status, body) = try answer(await requests.get(url))
        guard status == 200, let configuration = try? JSONDecoder().decode(SMARTConfiguration.self, from: body) else {
            throw .noSMARTLaunch(server: base, reason: "\(url) answers HTTP \(status) without a SMART configuration")
        }
        return configuration
    }

    /// The token endpoint's answer to `form` and the client's authentication; a refusal
    /// becomes `refusal(reason)`.
    func token(_ form: [(String, String)], now: Date, refusal: (String) -> HealthRecordError) async throws(HealthRecordError) -> TokenResponse {
        let (status, body) = try Self.answer(await requests.post(tokenEndpoint, form: form + (try authentication(now: now))))
        guard status == 200 else { throw refusal(OAuthError.from(body)?.text ?? "HTTP \(status) from the token endpoint") }
        guard let token = try? JSONDecoder().decode(TokenResponse.self, from: body), token.token_type.lowercased() == "bearer" else {
            throw refusal("the token endpoint's answer holds no bearer access token")
        }
        return token
    }

    /// Asks `endpoint` to revoke `token` (RFC 7009); whether it said it did.
    func revoke(_ token: String, hint: String, at endpoint: String, now: Date) async -> Bool {
        guard let authentication = try? authentication(now: now),
              case .success(let answer) = await requests.post(endpoint, form: [("token", token), ("token_type_hint", hint)] + authentication)
        else { return false }
        return answer.status == 200
    }

    /// `client_id`, and a confidential client's signed assertion.
    private func authentication(now: Date) throws(HealthRecordError) -> [(String, String)] {
        guard let keyFile else { return [("client_id", clientID)] }
        do {
            let assertion = try ClientAssertion.make(clientID: clientID, audience: tokenEndpoint, key: try SMARTSigningKey(file: keyFile), now: now)
            return [("client_id", clientID), ("client_assertion_type", ClientAssertion.type), ("client_assertion", assertion)]
        } catch {
            throw .clientKey(keyFile: keyFile, reason: "\(error)")
        }
    }

    private static func answer(_ result: Result<(status: Int, body: Data), OAuthUnreachable>) throws(HealthRecordError) -> (Int, Data) {
        switch result {
        case .success(let answer): return answer
        case .failure(let unreachable): throw .unreachable(url: unreachable.url, detail: unreachable.detail)
        }
    }
}
