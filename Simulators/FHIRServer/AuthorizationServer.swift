import Foundation
import Hummingbird

/// The test server's authorization server: SMART Backend Services for a registered backend
/// client (``SMARTAuthority``), SMART App Launch for a registered app
/// (``SMARTLaunchAuthority``), or both, behind one discovery document and one token endpoint.
struct AuthorizationServer: Sendable {
    var backend: SMARTAuthority?
    var launch: SMARTLaunchAuthority?

    /// The token endpoint's answer: a backend's client credentials, else a launch's grants.
    /// `base` is the server's origin, which the endpoint's URL (an assertion's audience) starts with.
    mutating func token(_ form: OAuthDocument.TokenForm, base: String) -> Response {
        if form.grantType == "client_credentials", var backend {
            defer { self.backend = backend }
            return backend.token(for: form, audience: base + SMARTAuthority.tokenPath)
        }
        return launch?.token(form, audience: base + SMARTAuthority.tokenPath)
            ?? .oauthError(400, "unsupported_grant_type", "the test server does not grant \(form.grantType ?? "nothing")")
    }

    /// One discovery document: the token endpoint, and each part's members (lists joined).
    func configuration(base: String) -> SMARTConfiguration {
        var configuration = SMARTConfiguration(tokenEndpoint: base + SMARTAuthority.tokenPath)
        backend?.describe(in: &configuration)
        if let launch {
            launch.describe(in: &configuration, base: base)
            configuration.grantTypesSupported = SMARTConfiguration.union(configuration.grantTypesSupported, ["authorization_code", "refresh_token"])
            configuration.announced = launch.registration.announced
        }
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
