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

extension HealthRecordController {
    /// The page, with `notice` at its top.
    func healthRecordPage(_ context: WebContext, notice: WebPage.Notice?) async throws -> Response {
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
}

extension HealthRecordSettings {
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
}

/// The field of the form that connects a health record: the FHIR server's address.
struct ServerForm: Decodable {
    var server: String
}
