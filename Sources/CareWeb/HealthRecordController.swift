import CareFHIR
import CarePlan
import CarePlanStore
import Clocks
import Foundation
import Hummingbird
import Logging
import Markup

/// The health record (`/health-record`): connecting one through SMART App Launch, its
/// callback, refreshing the medications from it, and disconnecting; not served without
/// ``WebConfiguration/healthRecord``.
struct HealthRecordController: Sendable {
    /// How a record is connected (without it the pages are not served), and what it reads.
    let settings: HealthRecordSettings?, store: CarePlanStore
    let forms: SignedInForms, clock: any WallClock, logger: Logger

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/health-record") { request, context in try await healthRecord(request, context) }
        router.post("/health-record/connect") { request, context in try await connectHealthRecord(request, context) }
        router.get(RouterPath(HealthRecordApp.callbackPath)) { request, context in try await healthRecordCallback(request, context) }
        router.post("/health-record/refresh") { request, context in try await refreshHealthRecord(request, context) }
        router.post("/health-record/disconnect") { request, context in try await disconnectHealthRecord(request, context) }
    }

    /// The health record: the connection (server, patient, granted scopes, until when), a
    /// "sign in again" notice once a refresh was refused, and the buttons to refresh the
    /// medications, disconnect, or connect a record.
    func healthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        let notice = request.uri.queryParameters["disconnected"].map { _ in WebPage.Notice(text: context.words["healthRecord", "disconnected"], isError: false) }
        return try await healthRecordPage(context, notice: notice)
    }

    /// Starts a launch: the server's SMART configuration read, the launch kept for its
    /// callback (bound to this session), and a page that sends the browser on to sign in.
    /// (A redirect would be refused: the page's `form-action 'self'` covers where a form's
    /// answer redirects.)
    func connectHealthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, form) = try await forms.recording(request, context)
        let settings = try healthRecordSettings()
        let server = try form.decode(ServerForm.self).server.trimmingCharacters(in: .whitespaces)
        let app = try settings.app()
        let now = clock.now
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
        let now = clock.now
        guard let launch = try pending.take(state: state, session: context.signedIn?.session.id, now: now) else {
            logger.warning("a health record callback named no launch of this session", metadata: ["session": "\(context.signedIn?.session.shortID ?? "none")"])
            throw WebFailure.refused(HealthRecordSettings.text(of: .unknownState, context.words, server: ""))
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
            throw WebFailure.refused(HealthRecordSettings.text(of: error, context.words, server: launch.server))
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
        _ = try await forms.recording(request, context)
        return try await healthRecordPage(context, notice: await importMedications(try healthRecordSettings(), words: context.words))
    }

    /// Revokes the tokens where the server offers it, and forgets them.
    func disconnectHealthRecord(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, _) = try await forms.recording(request, context)
        let settings = try healthRecordSettings()
        let revoked = try await refusing(context.words, server: "") { () async throws(HealthRecordError) -> Bool? in
            try await settings.vault.disconnect(requests: settings.requests, now: clock.now)
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
                into: store, authorizer: settings.authorizer, today: CalendarDay.containing(clock.now, in: zone), device: "care app")
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
            throw .refused(HealthRecordSettings.text(of: error, words, server: server))
        }
    }

    /// The settings, or not found where the primary connects no health record.
    func healthRecordSettings() throws -> HealthRecordSettings {
        guard let settings else { throw WebFailure.notFound }
        return settings
    }
}
