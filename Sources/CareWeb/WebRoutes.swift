import CareFHIR
import HTTPTypes
import Hummingbird

extension CareWebServer {
    /// Every page and form of the app. Pages answer GET; whatever changes something is a
    /// form POSTed with the session's CSRF token, answered by a redirect (or by the page again
    /// with what was wrong), so that every action works without JavaScript.
    func routes() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.get("/sign-in") { _, context in self.signInPage(context) }
        router.post("/sign-in") { request, context in try await self.signIn(request, context) }
        router.post("/sign-out") { request, context in try await self.signOut(request, context) }
        router.get("/") { request, context in try await self.careCard(request, context) }
        router.get("/symptoms") { request, context in try await self.symptoms(request, context) }
        router.get("/medications") { request, context in try await self.medications(request, context) }
        router.get("/medications/:id") { request, context in try await self.medication(request, context) }
        router.get("/insights") { request, context in try await self.insights(request, context) }
        router.get("/report.html") { request, context in try await self.report(request, context, pdf: false) }
        router.get("/report.pdf") { request, context in try await self.report(request, context, pdf: true) }
        router.get("/connect") { request, context in try await self.connect(request, context) }
        router.get("/devices") { request, context in try await self.devices(request, context) }
        router.post("/devices/code") { request, context in try await self.makeCode(request, context) }
        router.post("/devices/revoke") { request, context in try await self.revokeDevice(request, context) }
        router.post("/devices/sign-out") { request, context in try await self.signOutBrowser(request, context) }
        router.post("/outcomes") { request, context in try await self.recordOutcome(request, context) }
        router.get("/live") { _, context in try self.liveStream(context) }
        router.get("/health-record") { request, context in try await self.healthRecord(request, context) }
        router.post("/health-record/connect") { request, context in try await self.connectHealthRecord(request, context) }
        router.get(RouterPath(HealthRecordApp.callbackPath)) { request, context in try await self.healthRecordCallback(request, context) }
        router.post("/health-record/refresh") { request, context in try await self.refreshHealthRecord(request, context) }
        router.post("/health-record/disconnect") { request, context in try await self.disconnectHealthRecord(request, context) }
        return router
    }

    /// The form of a request that changes something: its session may record, and its CSRF
    /// token is the session's.
    func recordingForm(_ request: Request, _ context: WebContext) async throws -> (SignedIn, SubmittedForm) {
        let (signedIn, form) = try await signedInForm(request, context)
        guard signedIn.session.access.mayRecord else { throw WebFailure.readOnly }
        return (signedIn, form)
    }

    /// The form of a signed-in request, once its CSRF token is this session's.
    func signedInForm(_ request: Request, _ context: WebContext) async throws -> (SignedIn, SubmittedForm) {
        let signedIn = try context.session()
        let form = try await SubmittedForm.read(request, limit: configuration.maximumBodyBytes)
        let token = try form.decode(CSRFField.self).csrf ?? request.headers[.csrfToken] ?? ""
        guard signedIn.secret.accepts(csrfToken: token) else { throw WebFailure.forgedRequest }
        return (signedIn, form)
    }
}

extension HTTPField.Name {
    /// The CSRF token of a script's request (forms send it as the `csrf` field).
    static let csrfToken = Self("X-CSRF-Token")!
    /// Where a page sends the browser on by itself (`0; url=…`).
    static let refresh = Self("Refresh")!
}

/// A path on this server to go back to after a form: only a local path, never `//host`.
func localPath(_ text: String?, otherwise fallback: String = "/") -> String {
    guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"),
          text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else { return fallback }
    return text
}
