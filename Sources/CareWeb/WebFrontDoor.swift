import CareBackup
import CareCore
import CarePlan
import CarePlanStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// What every request passes through before and after its route: the static assets, the
/// language, the session from the cookie, the check that a form comes from this app's own
/// pages, the security headers, and refusals turned into a page (or JSON for scripts).
struct WebFrontDoor<Routes: HTTPResponder>: HTTPResponder where Routes.Context == WebContext {
    static var languageCookie: String { "caresync_lang" }

    let routes: Routes
    let store: CarePlanStore
    /// The care core's part that knows the sessions.
    let access: DeviceAccess
    /// How the scheduled backups stand (``WebConfiguration/backupHealth``).
    let backupHealth: BackupHealth?
    /// The hosts a request's `Host` may name (``WebConfiguration/servedHosts()``).
    let acceptedHosts: Set<String>
    /// Whether pages are served over TLS (and cookies marked Secure).
    let isSecure: Bool
    let logger: Logger

    /// What every page says while the scheduled backups fail: since when, why (the cause in
    /// the page's language; the system's own words stay in the log), when they are tried
    /// again and how old the newest is, in the plan's time zone.
    private func backupAlert(_ words: WebWords) async throws -> String? {
        guard let trouble = backupHealth?.status.trouble else { return nil }
        let zone = try await store.plan.timeZone()
        let when = { (date: Date) in words.moment(date, in: zone) }
        return words["backups", "failing", values: [
            "since": when(trouble.since), "reason": words["backups", "causes", trouble.cause.rawValue], "retry": when(trouble.retryAt),
            "newest": trouble.lastMade.map(when) ?? words["backups", "none"],
        ]]
    }

    func respond(to request: Request, context: WebContext) async throws -> Response {
        var context = context
        var response: Response
        do {
            try checkHost(request)
            if let asset = WebAssets.response(for: request.uri.path) {
                response = asset
            } else {
                context.words = words(for: request)
                if request.method == .get, let code = request.uri.queryParameters["lang"], let chosen = WebLanguages.named(String(code)) {
                    return secured(chooseLanguage(chosen, request))
                }
                try checkOrigin(request)
                context.signedIn = try await signedIn(request)
                if context.signedIn != nil { context.backupAlert = try await backupAlert(context.words) }
                response = try await routes.respond(to: request, context: context)
                // The router answers an unknown path with an empty 404: give it the page.
                if response.status == .notFound { throw WebFailure.notFound }
            }
        } catch {
            response = refusal(error, request, context)
        }
        return secured(response)
    }

    /// The language the person chose (a cookie), else the browser's first one the app speaks.
    private func words(for request: Request) -> WebWords {
        request.cookies[Self.languageCookie].flatMap { WebLanguages.named($0.value) }
            ?? WebLanguages.preferred(by: request.headers[.acceptLanguage])
    }

    /// Remembers the language for a year and shows the same page again without `lang` (its
    /// other parameters kept), never another site's.
    private func chooseLanguage(_ words: WebWords, _ request: Request) -> Response {
        let query = (request.uri.query ?? "").split(separator: "&").filter { !$0.hasPrefix("lang=") }.joined(separator: "&")
        var response = Response.seeOther(request.uri.path + (query.isEmpty ? "" : "?" + query))
        response.setCookie(Cookie(
            name: Self.languageCookie, value: words.code, maxAge: 365 * 24 * 3600, path: "/", secure: isSecure,
            httpOnly: true, sameSite: .strict))
        return response
    }

    /// The request must name this app's host (`Host`, the port aside): a name of another
    /// site that resolves here (DNS rebinding) is refused.
    private func checkHost(_ request: Request) throws(WebFailure) {
        guard let authority = request.head.authority, let host = Self.host(of: authority),
              acceptedHosts.contains(host.lowercased()) else { throw .wrongHost }
    }

    /// The host of an authority, without its port (and an IPv6 address without brackets).
    static func host(of authority: String) -> String? {
        if authority.hasPrefix("[") {
            guard let end = authority.firstIndex(of: "]") else { return nil }
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
    }

    /// A request that changes something must come from a page of this app: a browser sends
    /// `Origin` with it, which must name this server (forms also carry the CSRF token).
    private func checkOrigin(_ request: Request) throws(WebFailure) {
        guard request.method != .get, request.method != .head, let origin = request.headers[.origin] else { return }
        let host = request.head.authority ?? ""
        guard origin == (isSecure ? "https://" : "http://") + host else { throw .forgedRequest }
    }

    /// The valid session the cookie names, if any.
    private func signedIn(_ request: Request) async throws -> SignedIn? {
        guard let cookie = request.cookies[SessionSecret.cookieName], let secret = SessionSecret(cookie: cookie.value),
              let session = try await access.session(secret.sessionID) else { return nil }
        return SignedIn(session: session, secret: secret)
    }

    /// The page (or JSON) a refused or failed request gets.
    private func refusal(_ error: any Error, _ request: Request, _ context: WebContext) -> Response {
        let failure: WebFailure
        switch error {
        case let refused as WebFailure:
            failure = refused
        case let http as HTTPError where http.status == .notFound || http.status == .methodNotAllowed:
            failure = .notFound
        case let http as HTTPError where http.status == .contentTooLarge:
            failure = .tooLarge
        case let refused as CarePlanStoreError where Rejection(refused) != nil:
            failure = .refused(context.words.refusal(Rejection(refused)!))
        default:
            logger.error("a web request failed", metadata: [
                "path": "\(request.uri.path)", "method": "\(request.method)", "error": "\(error)",
            ])
            return page(status: .internalServerError, code: "failed", message: context.words["errors", "failed"], request, context)
        }
        if failure == .signInNeeded, request.method == .get, !wantsJSON(request) {
            return .seeOther("/sign-in")
        }
        return page(status: failure.status, code: failure.code, message: failure.message(context.words), request, context,
                    title: failure.title(context.words))
    }

    private func page(
        status: HTTPResponse.Status, code: String, message: String, _ request: Request, _ context: WebContext,
        title: String? = nil
    ) -> Response {
        if wantsJSON(request) {
            let body = (try? JSONSerialization.data(withJSONObject: ["error": code, "message": message], options: [.sortedKeys])) ?? Data()
            return Response(
                status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        let page = WebPage(title: title ?? context.words["errors", "title"], context: context)
        return page.response(status: status) { main in
            main.element("p", ["class": "notice error", "role": "alert"], text: message)
            main.element("p") { $0.element("a", ["href": "/"], text: context.words["errors", "back"]) }
        }
    }

    private func wantsJSON(_ request: Request) -> Bool {
        let accept = request.headers[.accept] ?? ""
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    /// Every response: no framing, no sniffing, no referrer to other sites, no inline script or
    /// style. (With `no-referrer`, browsers send `Origin: null` with their own forms.)
    private func secured(_ response: Response) -> Response {
        var response = response
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "same-origin"
        response.headers[.frameOptions] = "DENY"
        if isSecure { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

extension HTTPField.Name {
    static let referrerPolicy = Self("Referrer-Policy")!
    static let frameOptions = Self("X-Frame-Options")!
    static let strictTransportSecurity = Self("Strict-Transport-Security")!
}
