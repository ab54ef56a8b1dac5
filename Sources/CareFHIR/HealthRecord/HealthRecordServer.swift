import Foundation

/// A health record's authorization server as a connected client uses it: its token endpoint
/// (codes, refreshes) and its revocation endpoint.
struct HealthRecordServer: Sendable {
    var tokenEndpoint: String
    var requests: OAuthRequests

    /// The SMART configuration of the FHIR server at `base`.
    static func configuration(of base: String, requests: OAuthRequests) async throws(HealthRecordError) -> SMARTConfiguration {
        let url = SMARTConfiguration.url(of: base)
        let (status, body) = try answer(await requests.get(url))
        guard status == 200, let configuration = try? JSONDecoder().decode(SMARTConfiguration.self, from: body) else {
            throw .noSMARTLaunch(server: base, reason: "\(url) answers HTTP \(status) without a SMART configuration")
        }
        return configuration
    }

    /// The token endpoint's answer to `form`; a refusal becomes `refusal(reason)`.
    func token(_ form: [(String, String)], refusal: (String) -> HealthRecordError) async throws(HealthRecordError) -> TokenResponse {
        let (status, body) = try Self.answer(await requests.post(tokenEndpoint, form: form))
        guard status == 200 else { throw refusal(OAuthError.from(body)?.text ?? "HTTP \(status) from the token endpoint") }
        guard let token = try? JSONDecoder().decode(TokenResponse.self, from: body), token.token_type.lowercased() == "bearer" else {
            throw refusal("the token endpoint's answer holds no bearer access token")
        }
        return token
    }

    /// Asks `endpoint` to revoke `token` (RFC 7009); whether it said it did.
    func revoke(_ token: String, hint: String, at endpoint: String, clientID: String) async -> Bool {
        guard case .success(let answer) = await requests.post(endpoint, form: [
            ("token", token), ("token_type_hint", hint), ("client_id", clientID),
        ]) else { return false }
        return answer.status == 200
    }

    private static func answer(_ result: Result<(status: Int, body: Data), OAuthUnreachable>) throws(HealthRecordError) -> (Int, Data) {
        switch result {
        case .success(let answer): return answer
        case .failure(let unreachable): throw .unreachable(url: unreachable.url, detail: unreachable.detail)
        }
    }
}
