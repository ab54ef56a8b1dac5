import CarePlanStore
import Foundation
import Hummingbird
import NodeIdentity

extension CareWebServer {
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
        let form = try await Form.read(request, limit: configuration.maximumBodyBytes)
        let words = context.words
        guard let code = PairingCode(try form.required("code")) else {
            return signInPage(context, refusal: words["signIn", "notACode"], status: .badRequest)
        }
        let secret = SessionSecret.random()
        let name = String((form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(60))
        let result = try await store.signIn(
            code: code.characters, sessionID: secret.sessionID, name: name.isEmpty ? words["signIn", "defaultName"] : name,
            lifetime: configuration.sessionLifetime)
        switch result {
        case .success(let session):
            logger.notice("a browser signed in", metadata: ["session": "\(session.shortID)", "access": "\(session.access.rawValue)"])
            var response = Response.seeOther("/")
            response.setCookie(sessionCookie(secret.text, maxAge: Int(configuration.sessionLifetime)))
            return response
        case .failure(let refusal):
            logger.notice("a sign-in was refused", metadata: ["reason": "\(refusal)"])
            return signInPage(context, refusal: Self.text(of: refusal, words), status: .unauthorized)
        }
    }

    /// Ends this browser's session and forgets its cookie.
    func signOut(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, _) = try await signedInForm(request, context)
        try await store.endWebSession(signedIn.session.id)
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
