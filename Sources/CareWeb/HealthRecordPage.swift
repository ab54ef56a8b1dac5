import CareFHIR
import CarePlan
import Foundation
import Hummingbird
import Markup

/// What the care app needs to connect the patient's health record (SMART App Launch): where
/// the sign-in is kept (and the registration the primary announced once its care app
/// listened, ``TokenVault/app()``), how servers are asked, and the authorizer that refreshes
/// the person's tokens: the primary's one, which its upload shares, so that no two refreshes
/// spend the same refresh token.
public struct HealthRecordSettings: Sendable {
    public var vault: TokenVault
    public var requests: OAuthRequests
    public var authorizer: HealthRecordAuthorizer

    public init(vault: TokenVault, requests: OAuthRequests, authorizer: HealthRecordAuthorizer) {
        self.vault = vault
        self.requests = requests
        self.authorizer = authorizer
    }

    /// The client id and redirect URI the primary announced.
    func app() throws -> HealthRecordApp {
        guard let app = vault.app() else { throw WebFailure.refused(HealthRecordError.vault("the care app has not said its address yet").description) }
        return app
    }
}

extension CareWebServer {
    /// The health record: the connection (server, patient, granted scopes, until when), a
    /// "sign in again" notice once a refresh was refused, and the buttons to refresh the
    /// medications, disconnect, or connect a record.
    func healthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        let notice = request.uri.queryParameters["disconnected"].map { _ in WebPage.Notice(text: context.words["healthRecord", "disconnected"], isError: false) }
        return try await healthRecordPage(context, notice: notice)
    }

    /// The page, with `notice` at its top.
    private func healthRecordPage(_ context: WebContext, notice: WebPage.Notice?) async throws -> Response {
        let signedIn = try context.session()
        let settings = try healthRecordSettings()
        let words = context.words
        let connection = try settings.vault.connection()
        let app = settings.vault.app()
        let zone = try await store.plan.timeZone()
        var page = WebPage(title: words["healthRecord", "title"], section: .connect, context: context, revision: try await store.revision())
        page.notice = notice
        return page.response { main in
            if let connection {
                main.element("section", ["class": "card", "id": "health-record"]) { card in
                    card.element("h2", text: words["healthRecord", "connectedTo", values: ["server": connection.server]])
                    card.element("p", ["id": "patient"], text: words["healthRecord", "patient", values: ["patient": connection.patient ?? "?"]])
                    if let expiry = connection.expiresAt {
                        card.element("p", text: words["healthRecord", "accessUntil", values: ["time": words.moment(expiry, in: zone)]])
                    }
                    let notGranted = connection.uploadsNotGranted
                    card.element("p", ["id": "sending"], text: notGranted.isEmpty
                        ? words["healthRecord", "sending", values: ["patient": connection.patient ?? "?"]]
                        : words["healthRecord", "notSending", values: ["types": notGranted.joined(separator: ", ")]])
                    card.element("h3", text: words["healthRecord", "granted"])
                    card.element("ul", ["id": "granted-scopes"]) { list in
                        for scope in connection.grantedScope.split(separator: " ") { list.element("li") { $0.element("code", text: String(scope)) } }
                    }
                }
                if let reason = connection.signInNeeded {
                    main.element("p", ["class": "notice error", "role": "alert", "id": "sign-in-again"],
                                 text: words["healthRecord", "signInAgain", values: ["reason": reason]])
                }
            } else {
                main.element("p", text: words["healthRecord", "intro"])
            }
            guard signedIn.session.access.mayRecord else { return }
            if let connection, connection.signInNeeded == nil {
                main.element("form", ["method": "post", "action": "/health-record/refresh"]) { form in
                    form.csrf(signedIn)
                    form.element("button", ["type": "submit", "id": "refresh"], text: words["healthRecord", "refresh"])
                }
                main.element("form", ["method": "post", "action": "/health-record/disconnect"]) { form in
                    form.csrf(signedIn)
                    form.element("button", ["type": "submit", "class": "secondary", "id": "disconnect"], text: words["healthRecord", "disconnect"])
                }
            } else {
                main.element("form", ["method": "post", "action": "/health-record/connect", "id": "connect-form"]) { form in
                    form.csrf(signedIn)
                    form.element("label", ["for": "server"], text: words["healthRecord", "server"])
                    form.empty("input", ["id": "server", "name": "server", "type": "url", "required": "required",
                                         "value": connection?.server ?? "", "placeholder": "https://fhir.example.org/r4",
                                         "aria-describedby": "server-hint"])
                    form.element("p", ["id": "server-hint", "class": "instructions"], text: words["healthRecord", "serverHint"])
                    form.element("p") { $0.element("button", ["type": "submit", "id": "connect"], text: words["healthRecord", "connect"]) }
                }
            }
            main.element("p", ["class": "instructions", "id": "registration"], text: words["healthRecord", "registration", values: [
                "client": app?.clientID ?? "", "redirect": app?.redirectURI ?? "",
            ]])
        }
    }

    /// Starts a launch: the server's SMART configuration read, the launch kept for its
    /// callback (bound to this session), and a page that sends the browser on to sign in.
    /// (A redirect would be refused: the page's `form-action 'self'` covers where a form's
    /// answer redirects.)
    func connectHealthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, form) = try await recordingForm(request, context)
        let settings = try healthRecordSettings()
        let server = try form.decode(ServerForm.self).server.trimmingCharacters(in: .whitespaces)
        let app = try settings.app()
        let now = configuration.clock.now
        let words = context.words
        let launch = try await refusing(words, server: server) { () async throws(HealthRecordError) -> HealthRecordLaunch in
            let launch = try await HealthRecordLaunch.begin(
                server: server, app: app, session: signedIn.session.id, now: now, requests: settings.requests)
            try PendingLaunches(vault: settings.vault).add(launch, now: now)
            return launch
        }
        logger.notice("a health record sign-in was started from the web", metadata: [
            "server": "\(launch.server)", "session": "\(signedIn.session.shortID)",
        ])
        let page = WebPage(title: words["healthRecord", "continueTitle"], section: .connect, context: context)
        var response = page.response { main in
            main.element("p", ["id": "sign-in-host"], text: words["healthRecord", "continueText", values: [
                "host": launch.authorizationHost, "server": launch.server,
            ]])
            main.element("p") { $0.element("a", ["href": launch.authorizeURL, "class": "button", "id": "continue"], text: words["healthRecord", "continue"]) }
        }
        response.headers[.refresh] = "0; url=\(launch.authorizeURL)"
        return response
    }

    /// The authorization server's answer: the launch its `state` names taken (once, by the
    /// session that started it, or by anyone for one the command line started), the code
    /// exchanged, the tokens kept, the medications imported.
    func healthRecordCallback(_ request: Request, _ context: WebContext) async throws -> Response {
        let settings = try healthRecordSettings()
        let query = request.uri.queryParameters
        // The session cookie is SameSite=Strict: a browser sends it on no navigation another
        // site started, such as the authorization server's redirect. One hop from this page
        // to the same address is a navigation of this site's, which carries it. The hop is
        // built on the path this app owns, never the request's (`//host/…` is another site).
        if context.signedIn == nil, query["hop"] == nil {
            let again = HealthRecordApp.callbackPath + "?" + (request.uri.query ?? "") + "&hop=1"
            var response = WebPage(title: context.words["healthRecord", "continueTitle"], context: context).response { main in
                main.element("p") { $0.element("a", ["href": again, "id": "continue"], text: context.words["healthRecord", "continue"]) }
            }
            response.headers[.refresh] = "0; url=\(again)"
            return response
        }
        let state = query["state"].map(String.init) ?? ""
        let pending = PendingLaunches(vault: settings.vault)
        let now = configuration.clock.now
        guard let launch = try pending.take(state: state, session: context.signedIn?.session.id, now: now) else {
            logger.warning("a health record callback named no launch of this session", metadata: ["session": "\(context.signedIn?.session.shortID ?? "none")"])
            throw WebFailure.refused(Self.text(of: .unknownState, context.words, server: ""))
        }
        do {
            if let error = query["error"] {
                throw HealthRecordError.refused([String(error), query["error_description"].map(String.init)].compactMap { $0 }.joined(separator: ": "))
            }
            let connection = try await launch.finish(code: query["code"].map(String.init) ?? "", now: now, requests: settings.requests)
            try settings.vault.keep(connection)
            try pending.end(state: state, .connected(patient: connection.patient))
            logger.notice("a health record was connected", metadata: [
                "server": "\(connection.server)", "patient": "\(connection.patient ?? "none")", "scopes": "\(connection.grantedScope)",
            ])
        } catch let error as HealthRecordError {
            try? pending.end(state: state, .failed(error.description))
            logger.warning("a health record sign-in failed", metadata: ["server": "\(launch.server)", "reason": "\(error)"])
            throw WebFailure.refused(Self.text(of: error, context.words, server: launch.server))
        }
        let imported = await importMedications(settings, words: context.words)
        guard context.signedIn != nil else {
            // Started by `caresync fhir connect`, finished in a browser that is not signed in.
            let page = WebPage(title: context.words["healthRecord", "connectedTitle"], context: context)
            return page.response { main in
                main.element("p", ["class": imported.isError ? "notice error" : "notice"], text: imported.text)
                main.element("p", text: context.words["healthRecord", "closeWindow"])
            }
        }
        return try await healthRecordPage(context, notice: imported)
    }

    /// Imports the medications again from the connected record.
    func refreshHealthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        _ = try await recordingForm(request, context)
        return try await healthRecordPage(context, notice: await importMedications(try healthRecordSettings(), words: context.words))
    }

    /// Revokes the tokens where the server offers it, and forgets them.
    func disconnectHealthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, _) = try await recordingForm(request, context)
        let settings = try healthRecordSettings()
        let revoked = try await refusing(context.words, server: "") { () async throws(HealthRecordError) -> Bool? in
            try await settings.vault.disconnect(requests: settings.requests, now: configuration.clock.now)
        }
        logger.notice("the health record was disconnected", metadata: [
            "revoked": "\(revoked.map(String.init) ?? "not offered")", "session": "\(signedIn.session.shortID)",
        ])
        return .seeOther("/health-record?disconnected=1")
    }

    /// Imports the patient's medication orders from the connected record: what changed, or
    /// why nothing could be, as the page's notice.
    func importMedications(_ settings: HealthRecordSettings, words: WebWords) async -> WebPage.Notice {
        do {
            guard let connection = try settings.vault.connection() else { throw HealthRecordError.notConnected }
            let zone = try await store.plan.timeZone()
            let report = try await connection.importMedications(
                into: store, authorizer: settings.authorizer, today: CalendarDay.containing(configuration.clock.now, in: zone), device: "care app")
            logger.notice("medications were imported from the health record", metadata: [
                "added": "\(report.added.count)", "updated": "\(report.updated.count)", "refused": "\(report.refused.count)",
            ])
            return WebPage.Notice(text: words.counted("healthRecord", "imported", count: report.imported, [
                "added": "\(report.added.count)", "updated": "\(report.updated.count)",
                "ended": "\(report.ended.count)", "refused": "\(report.refused.count)",
            ]), isError: false)
        } catch {
            logger.warning("the medications could not be imported from the health record", metadata: ["reason": "\(error)"])
            return WebPage.Notice(text: words["healthRecord", "importFailed", values: ["reason": "\(error)"]], isError: true)
        }
    }

    /// What `body` gives; its failure logged (with the developer's detail) and refused with
    /// the reason a person reads in `words`.
    private func refusing<Value>(
        _ words: WebWords, server: String, _ body: () async throws(HealthRecordError) -> Value
    ) async throws(WebFailure) -> Value {
        do {
            return try await body()
        } catch {
            logger.notice("a health record request failed", metadata: ["server": "\(server)", "reason": "\(error)"])
            throw .refused(Self.text(of: error, words, server: server))
        }
    }

    /// `error` as a person reads it in `words`: what to do, never a developer's detail. Every
    /// way a server does not answer reads the same, so that Connect tells nothing of the state
    /// of the primary's network (a refused port, a closed one, an HTTP error).
    static func text(of error: HealthRecordError, _ words: WebWords, server: String) -> String {
        switch error {
        case .insecureEndpoint(_, .server):
            words["healthRecord", "errors", "needsHTTPS"]
        case .insecureEndpoint:
            words["healthRecord", "errors", "endpointNotHTTPS", values: ["server": server]]
        case .unreachable, .noSMARTLaunch:
            words["healthRecord", "errors", "noSMARTServer", values: ["server": server]]
        case .unknownState: words["healthRecord", "errors", "unknownState"]
        case .refused: words["healthRecord", "errors", "refused"]
        case .exchangeFailed, .signInAgain: words["healthRecord", "errors", "noAccess"]
        case .notConnected: words["healthRecord", "errors", "notConnected"]
        case .vault, .clientKey: words["healthRecord", "errors", "primaryFailed"]
        }
    }

    private func healthRecordSettings() throws -> HealthRecordSettings {
        guard let settings = configuration.healthRecord else { throw WebFailure.notFound }
        return settings
    }
}

/// The field of the form that connects a health record: the FHIR server's address.
struct ServerForm: Decodable {
    var server: String
}
