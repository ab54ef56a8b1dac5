import CareCore
import CarePlanStore
import Clocks
import Foundation
import Hummingbird
import Logging
import NodeIdentity

/// Signing in with a one-time code (`/sign-in`, throttled by source) and out (`/sign-out`).
struct SignInController: Sendable {
    /// The care core's part that redeems sign-in codes and ends sessions, the wrong codes
    /// counted by source, and the live streams, ended with the session that signs out.
    let access: DeviceAccess, throttle: SignInThrottle, live: LiveStreams
    let forms: SignedInForms, clock: any WallClock, logger: Logger
    /// How long a sign-in lasts, and whether its cookie is marked Secure (served over TLS).
    let sessionLifetime: TimeInterval, isSecure: Bool

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/sign-in") { _, context in signInPage(context) }
        router.post("/sign-in") { request, context in try await signIn(request, context) }
        router.post("/sign-out") { request, context in try await signOut(request, context) }
    }

    /// The sign-in form: a one-time code made on the primary and, optionally, a name for this
    /// browser as the devices page will list it.
    func signInPage(_ context: WebContext, refusal: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let words = context.words
        var page = WebPage(title: words["signIn", "title"], context: context)
        page.notice = refusal.map { WebPage.Notice(text: $0, isError: true) }
        return page.response(status: status) { main in
            main.element("p", text: words["signIn", "explain"])
            main.element("form", ["method": "post", "action": "/sign-in", "class": "sign-in"]) { form in
                form.element("label", ["for": "code"], text: words["signIn", "code"])
                form.empty("input", [
                    "type": "text", "id": "code", "name": "code", "class": "code", "autocomplete": "one-time-code",
                    "required": "required", "maxlength": "20", "autocapitalize": "characters", "spellcheck": "false",
                    "aria-describedby": "code-hint",
                ])
                form.element("p", ["id": "code-hint", "class": "instructions"], text: words["signIn", "codeHint"])
                form.element("label", ["for": "name"], text: words["signIn", "name"])
                form.empty("input", ["type": "text", "id": "name", "name": "name", "maxlength": "60", "autocomplete": "off"])
                form.element("p") { $0.element("button", ["type": "submit"], text: words["signIn", "submit"]) }
            }
        }
    }

    /// Redeems a sign-in code: a session cookie and the care card, or the form again with why.
    func signIn(_ request: Request, _ context: WebContext) async throws -> Response {
        let submitted = try await SubmittedForm.read(request, limit: forms.limit)
        let words = context.words
        let now = clock.now
        if let until = throttle.refusedUntil(context.source, at: now) {
            logger.notice("a sign-in was refused: too many wrong codes from its source", metadata: ["source": "\(context.source)"])
            return throttled(context, until: until, now: now)
        }
        let form = try submitted.decode(SignInForm.self)
        guard let code = PairingCode(form.code) else {
            return signInPage(context, refusal: words["signIn", "notACode"], status: .badRequest)
        }
        let secret = SessionSecret.random()
        let name = String((form.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(60))
        let result = try await access.signIn(
            code: code.characters, sessionID: secret.sessionID, name: name.isEmpty ? words["signIn", "defaultName"] : name,
            lifetime: sessionLifetime)
        switch result {
        case .success(let session):
            logger.notice("a browser signed in", metadata: ["session": "\(session.shortID)", "access": "\(session.access.rawValue)"])
            var response = Response.seeOther("/")
            response.setCookie(sessionCookie(secret.text, maxAge: Int(sessionLifetime)))
            return response
        case .failure(var refusal):
            logger.notice("a sign-in was refused", metadata: ["reason": "\(refusal)", "source": "\(context.source)"])
            if case .wrongCode(let left) = refusal {
                let sourceLeft = throttle.recordFailure(context.source, at: now)
                if sourceLeft == 0, let until = throttle.refusedUntil(context.source, at: now) {
                    return throttled(context, until: until, now: now)
                }
                refusal = .wrongCode(attemptsLeft: min(left, sourceLeft))
            }
            return signInPage(context, refusal: Self.text(of: refusal, words), status: .unauthorized)
        }
    }

    /// The sign-in form again, saying when this source may try another code (in seconds, and
    /// in `Retry-After`).
    private func throttled(_ context: WebContext, until: Date, now: Date) -> Response {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        var response = signInPage(context, refusal: context.words.counted("signIn", "throttled", count: seconds), status: .tooManyRequests)
        response.headers[.retryAfter] = String(seconds)
        return response
    }

    /// Ends this browser's session and forgets its cookie.
    func signOut(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, _) = try await forms.signedIn(request, context)
        try await access.endWebSession(signedIn.session.id)
        live.end(session: signedIn.session.id)
        var response = Response.seeOther("/sign-in")
        response.setCookie(sessionCookie("", maxAge: 0))
        return response
    }

    private func sessionCookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(name: SessionSecret.cookieName, value: value, maxAge: maxAge, path: "/", secure: isSecure, httpOnly: true, sameSite: .strict)
    }

    private static func text(of refusal: PairingRefusal, _ words: WebWords) -> String {
        switch refusal {
        case .wrongCode(let left): words.counted("signIn", "wrongCode", count: left)
        case .locked: words["signIn", "locked"]
        case .expired: words["signIn", "expired"]
        case .used: words["signIn", "used"]
        case .noOpenCode, .wrongRole, .revoked: words["signIn", "noOpenCode"]
        }
    }
}

/// The sign-in form's fields: the one-time code and, optionally, the browser's name.
struct SignInForm: Decodable {
    var code: String
    var name: String?
}
