import Crypto
import Foundation
import Hummingbird
import Clocks

/// The app a ``FHIRTestServer`` lets patients sign in to (SMART App Launch, standalone): its
/// client id and the redirect URIs registered for it, and the patients who may sign in.
public struct SMARTLaunchRegistration: Sendable {
    public var clientID: String
    /// The exact redirect URIs a launch may name.
    public var redirectURIs: [String]
    /// The patients' logins: user name → (password, patient id).
    public var users: [String: (password: String, patient: String)]
    /// Whether the server lists SMART v2 scopes (else only v1's).
    public var v2Scopes = true
    /// How long an access token lasts, and a code, in seconds.
    public var tokenLifetime = 300
    public var codeLifetime = 60
    /// For a confidential client, its key (with the same client id): every token request and
    /// revocation must carry an assertion signed with it (`private_key_jwt`). `nil`: a public
    /// client, known by its id alone.
    public var clientKey: SMARTClientRegistration?
    /// Members of the discovery document given other values (`"token_endpoint": "http://…"`):
    /// a server that sends the sign-in elsewhere, for what a client accepts.
    public var announced: [String: String] = [:]

    public init(clientID: String, redirectURIs: [String], users: [String: (password: String, patient: String)]) {
        self.clientID = clientID
        self.redirectURIs = redirectURIs
        self.users = users
    }
}

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

    /// Adds the members of the SMART configuration a standalone launch needs.
    func describe(in configuration: inout SMARTConfiguration, base: String) {
        let v2 = ["patient/MedicationRequest.rs", "patient/Medication.rs", "patient/Patient.rs", "patient/Observation.c",
                  "patient/Device.c", "patient/MedicationAdministration.c"]
        let v1 = ["patient/MedicationRequest.read", "patient/MedicationOrder.read", "patient/Medication.read", "patient/Patient.read",
                  "patient/Observation.write", "patient/Device.write", "patient/MedicationAdministration.write"]
        configuration.authorizationEndpoint = base + Self.authorizePath
        configuration.revocationEndpoint = base + Self.revokePath
        configuration.codeChallengeMethodsSupported = ["S256"]
        configuration.scopesSupported = SMARTConfiguration.union(
            configuration.scopesSupported, ["launch/patient", "openid", "fhirUser", "offline_access"] + (registration.v2Scopes ? v2 : v1))
        configuration.capabilities = SMARTConfiguration.union(configuration.capabilities, [
            "launch-standalone", registration.clientKey == nil ? "client-public" : "client-confidential-asymmetric",
            "context-standalone-patient", "permission-patient", "permission-offline", registration.v2Scopes ? "permission-v2" : "permission-v1",
        ])
        configuration.tokenEndpointAuthMethodsSupported = SMARTConfiguration.union(
            configuration.tokenEndpointAuthMethodsSupported, registration.clientKey == nil ? ["none"] : ["private_key_jwt"])
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
        guard query.clientID == registration.clientID else { return Self.page(400, "Unknown app", "No app is registered as this client.") }
        guard let redirect = query.redirectURI, registration.redirectURIs.contains(redirect) else {
            return Self.page(400, "Unknown return address", "The redirect URI is not one registered for this app.")
        }
        let state = query.state ?? ""
        guard query.responseType == "code" else { return Self.redirect(redirect, ["error": "unsupported_response_type", "state": state]) }
        guard query.codeChallengeMethod == "S256", let challenge = query.codeChallenge, !challenge.isEmpty else {
            return Self.redirect(redirect, ["error": "invalid_request", "error_description": "PKCE with S256 is required", "state": state])
        }
        guard query.aud == fhirBase else {
            return Self.redirect(redirect, ["error": "invalid_request", "error_description": "aud must be \(fhirBase)", "state": state])
        }
        let id = randomHex()
        requests[id] = Request(redirectURI: redirect, state: state, challenge: challenge, scope: query.scope ?? "")
        return Self.loginPage(request: id, wrong: false)
    }

    /// The consent page once the patient's login is right, else the login page again.
    mutating func login(_ form: OAuthDocument.LoginForm) -> Response {
        guard let id = form.request, var request = requests[id] else { return Self.page(400, "Expired", "Start signing in again from the app.") }
        guard let user = registration.users[form.username ?? ""], user.password == form.password else {
            return Self.loginPage(request: id, wrong: true)
        }
        request.patient = user.patient
        requests[id] = request
        let scopes = request.scope.split(separator: " ").map { "<li><code>\(Self.escaped(String($0)))</code></li>" }.joined()
        return Self.html(200, "Allow access?", """
            <p>The app <strong>\(Self.escaped(registration.clientID))</strong> asks for access to your record:</p><ul id="scopes">\(scopes)</ul>
            <form method="post" action="\(Self.consentPath)"><input type="hidden" name="request" value="\(id)">
            <button name="decision" value="allow" id="allow">Allow</button> <button name="decision" value="deny" id="deny">Deny</button></form>
            """)
    }

    /// The redirect back to the app: with a code if the patient allowed, else the refusal.
    mutating func consent(_ form: OAuthDocument.ConsentForm) -> Response {
        guard let id = form.request, let request = requests.removeValue(forKey: id), let patient = request.patient else {
            return Self.page(400, "Expired", "Start signing in again from the app.")
        }
        guard form.decision == "allow" else {
            return Self.redirect(request.redirectURI, ["error": "access_denied", "error_description": "the patient denied access", "state": request.state])
        }
        let code = randomHex()
        secrets.append(code)
        // Granted: what was asked, but never a system or user scope.
        let scope = request.scope.split(separator: " ").filter { !$0.hasPrefix("system/") && !$0.hasPrefix("user/") }.joined(separator: " ")
        codes[code] = Code(
            redirectURI: request.redirectURI, challenge: request.challenge, scope: scope, patient: patient,
            expires: clock.now.addingTimeInterval(TimeInterval(registration.codeLifetime)))
        return Self.redirect(request.redirectURI, ["code": code, "state": request.state])
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

    private static func redirect(_ uri: String, _ parameters: [String: String]) -> Response {
        var components = URLComponents(string: uri)
        let existing = components?.queryItems ?? []
        components?.queryItems = existing + parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return .body(302, Data(), contentType: "text/plain", headers: [.location: components?.string ?? uri])
    }

    private static func loginPage(request: String, wrong: Bool) -> Response {
        html(200, "Sign in to your health record", """
            \(wrong ? "<p id=\"wrong\" role=\"alert\">Wrong user name or password.</p>" : "")
            <form method="post" action="\(loginPath)"><input type="hidden" name="request" value="\(request)">
            <label>User name <input name="username" id="username" autocomplete="username"></label>
            <label>Password <input name="password" id="password" type="password" autocomplete="current-password"></label>
            <button id="sign-in">Sign in</button></form>
            """)
    }

    private static func page(_ status: Int, _ title: String, _ text: String) -> Response {
        html(status, title, "<p>\(escaped(text))</p>")
    }

    private static func html(_ status: Int, _ title: String, _ body: String) -> Response {
        let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(escaped(title))</title><style>body{font:16px system-ui;margin:2em auto;max-width:30em;padding:0 1em}
            label{display:block;margin:.8em 0}input{display:block;font:inherit;padding:.4em;width:100%}button{font:inherit;padding:.5em 1.2em}
            header{background:#1d4e89;color:#fff;padding:.6em 1em;margin:-2em -1em 1em}</style></head>
            <body><header>Test Health Record</header><h1>\(escaped(title))</h1>\(body)</body></html>
            """
        return .body(status, Data(page.utf8), contentType: "text/html; charset=utf-8", headers: [.cacheControl: "no-store"])
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// 128 random bits in hexadecimal: a code, a token, a request's id.
func randomHex() -> String {
    (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}
