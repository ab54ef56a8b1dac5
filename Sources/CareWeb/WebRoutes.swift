import CareFHIR
import HTTPTypes
import Hummingbird

extension CareWebServer {
    /// Every page and form of the app, one controller per page family, each given only what it
    /// uses. Pages answer GET; whatever changes something is a form POSTed with the session's
    /// CSRF token, answered by a redirect (or by the page again with what was wrong), so that
    /// every action works without JavaScript.
    func routes() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        let forms = SignedInForms(limit: configuration.maximumBodyBytes)
        let calendar = PlanCalendar(store: store, clock: configuration.clock)
        let clock = configuration.clock
        SignInController(
            access: core.access, throttle: signInThrottle, live: live, forms: forms, clock: clock, logger: logger,
            sessionLifetime: configuration.sessionLifetime, isSecure: isSecure
        ).addRoutes(to: router)
        CareCardController(store: store, outcomes: core.outcomes, calendar: calendar, forms: forms, logger: logger).addRoutes(to: router)
        SymptomsController(store: store, calendar: calendar).addRoutes(to: router)
        MedicationsController(store: store, calendar: calendar).addRoutes(to: router)
        InsightsController(store: store, calendar: calendar, printQueue: printQueue).addRoutes(to: router)
        ConnectController(store: store, offersHealthRecord: configuration.healthRecord != nil).addRoutes(to: router)
        DevicesController(store: store, access: core.access, live: live, forms: forms, clock: clock, logger: logger).addRoutes(to: router)
        LiveController(
            store: store, access: core.access, changes: changes, live: live, limit: configuration.maximumLiveStreams,
            perSession: configuration.maximumLiveStreamsPerSession, heartbeat: configuration.liveHeartbeat, logger: logger
        ).addRoutes(to: router)
        HealthRecordController(settings: configuration.healthRecord, store: store, forms: forms, clock: clock, logger: logger)
            .addRoutes(to: router)
        return router
    }
}

/// Reads the form of a signed-in request, once its CSRF token is this session's: what every
/// controller that changes something checks first.
struct SignedInForms: Sendable {
    /// The largest body read (``WebConfiguration/maximumBodyBytes``).
    let limit: Int

    /// The form of a request that changes something: its session may record, and its CSRF
    /// token is the session's.
    func recording(_ request: Request, _ context: WebContext) async throws -> (SignedIn, SubmittedForm) {
        let (signedIn, form) = try await signedIn(request, context)
        guard signedIn.session.access.mayRecord else { throw WebFailure.readOnly }
        return (signedIn, form)
    }

    /// The form of a signed-in request, once its CSRF token is this session's.
    func signedIn(_ request: Request, _ context: WebContext) async throws -> (SignedIn, SubmittedForm) {
        let signedIn = try context.session()
        let form = try await SubmittedForm.read(request, limit: limit)
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
