import Crypto
import Foundation
import Hummingbird
import Clocks

/// SMART App Launch's authorization server for a standalone patient launch: the login and
/// consent pages, codes bound to the client, the redirect URI and the PKCE challenge, access
/// and refresh tokens with the patient's context, revocation, and the refusals a real one
/// makes (an unknown client or redirect, a wrong verifier, a reused or expired code, a
/// revoked refresh token, a confidential client's missing or bad assertion).
struct SMARTLaunchAuthority: Sendable {
    static let authorizePath = "/auth/authorize"
    static let loginPath = "/auth/login"
    static let consentPath = "/auth/consent"
    static let revokePath = "/auth/revoke"

    let registration: SMARTLaunchRegistration
    let clock: any WallClock

    /// An authorization request between its login page and its consent.
    private struct Request {
        var redirectURI, state, challenge, scope: String
        var patient: String?
    }

    private struct Code {
        var redirectURI, challenge, scope, patient: String
        var expires: Date
        var used = false
        /// The tokens issued for it: revoked if it comes again.
        var tokens: [String] = []
    }

    private var requests: [String: Request] = [:]
    private var codes: [String: Code] = [:]
    /// Access tokens: when each expires, and its patient.
    private(set) var issued: [String: (expires: Date, patient: String)] = [:]
    /// Refresh tokens: their patient and scope.
    private var refreshTokens: [String: (patient: String, scope: String)] = [:]
    /// Why the token endpoint refused what it refused, in order.
    private(set) var refusals: [String] = []
    /// Every code, access token and refresh token issued, and every verifier received: what
    /// no log or output of a client may show.
    private(set) var secrets: [String] = []

    /// A confidential client's assertions.
    private var assertions: ClientAssertionCheck?

    init(registration: SMARTLaunchRegistration, clock: any WallClock) {
        self.registration = registration
        self.clock = clock
        assertions = registration.clientKey.map { ClientAssertionCheck(registration: $0, clock: clock) }
    }

    /// Forgets the token `form` names, once a confidential client's assertion passes
    /// (`audience`: the token endpoint's URL, which the assertion names).
    mutating func revoke(_ form: OAuthDocument.TokenForm, audience: String) -> Response {
        if let refusal = clientRefusal(form, audience: audience) { return refusal }
        let token = form.token ?? ""
        issued[token] = nil
        refreshTokens[token] = nil
        return .body(200, Data(), contentType: "text/plain")
    }

    /// The token endpoint's answer for the grants of a launch; `nil` for another grant.
    /// `audience` is the endpoint's URL, which a confidential client's assertion names.
    mutating func token(_ form: OAuthDocument.TokenForm, audience: String) -> Response? {
        guard ["authorization_code", "refresh_token"].contains(form.grantType) else { return nil }
        if let refusal = clientRefusal(form, audience: audience) { return refusal }
        switch form.grantType {
        case "authorization_code": return exchange(form)
        case "refresh_token": return refresh(form)
        default: return nil
        }
    }

    /// The patient of a valid access token; why it is refused otherwise.
    func patient(of token: String) -> Result<String, Refusal>? {
        guard let grant = issued[token] else { return nil }
        guard grant.expires > clock.now else { return .failure(Refusal(status: 401, text: "the access token has expired")) }
        return .success(grant.patient)
    }

    /// Every access token expires now.
    mutating func expireAll() {
        let now = clock.now
        issued = issued.mapValues { ($0.expires < now ? $0.expires : now, $0.patient) }
    }

    /// Every refresh token is refused from now on, as when a patient withdraws consent.
    mutating func revokeRefreshTokens() {
        refreshTokens = [:]
    }

    /// The login page of an authorization request, or where it is refused.
    mutating func authorize(_ query: OAuthDocument.AuthorizeQuery, fhirBase: String) -> Response {
        // A wrong client or redirect URI is told to the person, never redirected to.
        guard query.clientID == registration.clientID else { return LaunchPages.message(400, "Unknown app", "No app is registered as this client.") }
        guard let redirect = query.redirectURI, registration.redirectURIs.contains(redirect) else {
            return LaunchPages.message(400, "Unknown return address", "The redirect URI is not one registered for this app.")
        }
        let state = query.state ?? ""
        guard query.responseType == "code" else { return LaunchPages.redirect(redirect, ["error": "unsupported_response_type", "state": state]) }
        guard query.codeChallengeMethod == "S256", let challenge = query.codeChallenge, !challenge.isEmpty else {
            return LaunchPages.redirect(redirect, ["error": "invalid_request", "error_description": "PKCE with S256 is required", "state": state])
        }
        guard query.aud == fhirBase else {
            return LaunchPages.redirect(redirect, ["error": "invalid_request", "error_description": "aud must be \(fhirBase)", "state": state])
        }
        let id = randomHex()
        requests[id] = Request(redirectURI: redirect, state: state, challenge: challenge, scope: query.scope ?? "")
        return LaunchPages.login(request: id, wrong: false)
    }

    /// The consent page once the patient's login is right, else the login page again.
    mutating func login(_ form: OAuthDocument.LoginForm) -> Response {
        guard let id = form.request, var request = requests[id] else { return LaunchPages.message(400, "Expired", "Start signing in again from the app.") }
        guard let user = registration.users[form.username ?? ""], user.password == form.password else {
            return LaunchPages.login(request: id, wrong: true)
        }
        request.patient = user.patient
        requests[id] = request
        return LaunchPages.consent(client: registration.clientID, scope: request.scope, request: id)
    }

    /// The redirect back to the app: with a code if the patient allowed, else the refusal.
    mutating func consent(_ form: OAuthDocument.ConsentForm) -> Response {
        guard let id = form.request, let request = requests.removeValue(forKey: id), let patient = request.patient else {
            return LaunchPages.message(400, "Expired", "Start signing in again from the app.")
        }
        guard form.decision == "allow" else {
            return LaunchPages.redirect(request.redirectURI, ["error": "access_denied", "error_description": "the patient denied access", "state": request.state])
        }
        let code = randomHex()
        secrets.append(code)
        // Granted: what was asked, but never a system or user scope.
        let scope = request.scope.split(separator: " ").filter { !$0.hasPrefix("system/") && !$0.hasPrefix("user/") }.joined(separator: " ")
        codes[code] = Code(
            redirectURI: request.redirectURI, challenge: request.challenge, scope: scope, patient: patient,
            expires: clock.now.addingTimeInterval(TimeInterval(registration.codeLifetime)))
        return LaunchPages.redirect(request.redirectURI, ["code": code, "state": request.state])
    }

    private mutating func exchange(_ form: OAuthDocument.TokenForm) -> Response {
        if let verifier = form.codeVerifier { secrets.append(verifier) }
        guard let value = form.code, var code = codes[value] else { return refuse("invalid_grant", "the code is unknown") }
        guard !code.used else {
            for token in code.tokens { issued[token] = nil; refreshTokens[token] = nil }
            return refuse("invalid_grant", "the code was used before; the tokens issued for it are revoked")
        }
        code.used = true
        codes[value] = code
        guard code.expires > clock.now else { return refuse("invalid_grant", "the code has expired") }
        guard form.clientID == registration.clientID else { return refuse("invalid_client", "the code was issued to another client") }
        guard form.redirectURI == code.redirectURI else { return refuse("invalid_grant", "redirect_uri differs from the authorization request's") }
        guard let verifier = form.codeVerifier, Self.challenge(of: verifier) == code.challenge else {
            return refuse("invalid_grant", "the code_verifier does not match the code_challenge")
        }
        let (access, refresh) = (randomHex(), randomHex())
        secrets += [access, refresh]
        code.tokens = [access, refresh]
        codes[value] = code
        issued[access] = (clock.now.addingTimeInterval(TimeInterval(registration.tokenLifetime)), code.patient)
        refreshTokens[refresh] = (code.patient, code.scope)
        return .oauth(200, OAuthDocument.Token(
            accessToken: access, tokenType: "Bearer", expiresIn: registration.tokenLifetime, scope: code.scope, refreshToken: refresh,
            patient: code.patient))
    }

    private mutating func refresh(_ form: OAuthDocument.TokenForm) -> Response {
        guard form.clientID == registration.clientID else { return refuse("invalid_client", "the refresh token belongs to another client") }
        guard let value = form.refreshToken, let grant = refreshTokens[value] else {
            return refuse("invalid_grant", "the refresh token is unknown or revoked")
        }
        let access = randomHex()
        secrets.append(access)
        issued[access] = (clock.now.addingTimeInterval(TimeInterval(registration.tokenLifetime)), grant.patient)
        return .oauth(200, OAuthDocument.Token(
            accessToken: access, tokenType: "Bearer", expiresIn: registration.tokenLifetime, scope: grant.scope, patient: grant.patient))
    }

    /// Why a confidential client's request is refused (no assertion, or a bad one), if it is.
    private mutating func clientRefusal(_ form: OAuthDocument.TokenForm, audience: String) -> Response? {
        guard assertions != nil else { return nil }
        guard form.clientAssertionType == SMARTAuthority.assertionType, let assertion = form.clientAssertion else {
            return refuse("invalid_client", "this client is confidential: a client_assertion of type \(SMARTAuthority.assertionType) is needed", status: 401)
        }
        if let reason = assertions?.refusal(of: assertion, audience: audience) { return refuse("invalid_client", reason, status: 401) }
        return nil
    }

    private mutating func refuse(_ error: String, _ description: String, status: Int = 400) -> Response {
        refusals.append(description)
        return .oauthError(status, error, description)
    }

    static func challenge(of verifier: String) -> String { Base64URL.encode(SHA256.hash(data: Data(verifier.utf8))) }
}

/// 128 random bits in hexadecimal: a code, a token, a request's id.
func randomHex() -> String {
    (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}
