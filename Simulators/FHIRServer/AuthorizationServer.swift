import Foundation

/// The test server's authorization server: SMART Backend Services for a registered backend
/// client (``SMARTAuthority``), SMART App Launch for a registered app
/// (``SMARTLaunchAuthority``), or both, behind one discovery document and one token endpoint.
struct AuthorizationServer: Sendable {
    var backend: SMARTAuthority?
    var launch: SMARTLaunchAuthority?

    /// The answer to a request of the authorization server; `nil` for any other.
    mutating func answer(_ request: ServedRequest, base: String) -> HTTPAnswer? {
        let path = request.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        switch (request.method, path) {
        case (.get, SMARTAuthority.configurationPath):
            return SMARTAuthority.json(200, configuration(base: base))
        case (.post, SMARTAuthority.tokenPath):
            let form = FormBody.fields(request.body)
            if form["grant_type"] == "client_credentials", backend != nil {
                return backend?.token(for: form, audience: base + SMARTAuthority.tokenPath)
            }
            return launch?.token(form, audience: base + SMARTAuthority.tokenPath)
                ?? SMARTAuthority.error(400, "unsupported_grant_type", "the test server does not grant \(form["grant_type"] ?? "nothing")")
        default:
            return launch?.answer(request, fhirBase: base + "/fhir", tokenEndpoint: base + SMARTAuthority.tokenPath)
        }
    }

    /// One discovery document: the token endpoint, and each part's members (lists joined).
    private func configuration(base: String) -> [String: Any] {
        var configuration: [String: Any] = ["token_endpoint": base + SMARTAuthority.tokenPath]
        var parts = [backend?.configuration(base: base), launch?.configuration(base: base)].compactMap { $0 }
        if launch != nil { parts.append(["grant_types_supported": ["authorization_code", "refresh_token"]]) }
        for part in parts {
            configuration.merge(part) { old, new in
                guard let old = old as? [String], let new = new as? [String] else { return new }
                return old + new.filter { !old.contains($0) }
            }
        }
        configuration.merge(launch?.registration.announced ?? [:]) { _, announced in announced }
        return configuration
    }

    /// Why a FHIR request with this `Authorization` header is refused, if it is.
    func refusal(_ authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "the test server needs an access token" }
        if case .some(let grant) = launch?.patient(of: String(authorization.dropFirst("Bearer ".count))) {
            if case .failure(let refusal) = grant { return refusal.text }
            return nil
        }
        guard let backend else { return "the access token is unknown" }
        return backend.refusal(authorization)
    }

    /// The patient whose launch issued this request's token, if one did.
    func patient(_ authorization: String?) -> String? {
        guard let authorization, case .success(let patient) = launch?.patient(of: String(authorization.dropFirst("Bearer ".count))) else {
            return nil
        }
        return patient
    }

    /// Every access token issued so far expires now.
    mutating func expireAll() {
        backend?.expireAll()
        launch?.expireAll()
    }

    /// The access tokens issued so far.
    var tokensIssued: Int { (backend?.issued.count ?? 0) + (launch?.issued.count ?? 0) }
}
