import Foundation
import Hummingbird
import Synchronization

/// The server's state as the connections' handlers reach it.
final class SharedState: Sendable {
    let state: Mutex<ServerState>

    init(_ state: ServerState) {
        self.state = Mutex(state)
    }
}

/// The server's routes: the authorization server's endpoints (those its options have), then,
/// behind ``FHIRGate``, the FHIR API below `/fhir`. Every request passes ``RequestRecorder``
/// first.
enum ServerRouter {
    static func router(_ shared: SharedState, options: FHIRTestServer.Options) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestRecorder(shared: shared))
        if options.smart != nil || options.launch != nil {
            router.get(RouterPath(SMARTAuthority.configurationPath)) { _, _ in
                shared.authority { authority, origin in .oauth(200, authority.configuration(base: origin)) }
            }
            router.post(RouterPath(SMARTAuthority.tokenPath)) { request, context in
                let form = try await Self.form(OAuthDocument.TokenForm.self, request, context)
                return shared.authority { authority, origin in authority.token(form, base: origin) }
            }
        }
        if options.launch != nil { addLaunchRoutes(to: router, shared) }
        router.add(middleware: FHIRGate(shared: shared))
        router.post("/fhir") { request, _ in
            let body = Data(buffer: try await request.body.collect(upTo: .max))
            return try shared.state.withLock { try $0.transaction(body) }
        }
        router.get("/fhir/:type") { request, context in
            let type = try context.parameters.require("type")
            return try shared.state.withLock { try $0.searchset(type, target: request.uri.description) }
        }
        router.get("/fhir/:type/**") { _, context in
            let (type, id) = (try context.parameters.require("type"), context.parameters.getCatchAll().joined(separator: "/"))
            return try shared.state.withLock { try $0.read(type, id) }
        }
        return router
    }

    /// SMART App Launch's endpoints: the login and consent pages, and revocation.
    private static func addLaunchRoutes(to router: Router<BasicRequestContext>, _ shared: SharedState) {
        router.get(RouterPath(SMARTLaunchAuthority.authorizePath)) { request, _ in
            let query = try URLEncodedFormDecoder().decode(OAuthDocument.AuthorizeQuery.self, from: request.uri.query ?? "")
            return shared.launch { launch, origin in launch.authorize(query, fhirBase: origin + "/fhir") }
        }
        router.post(RouterPath(SMARTLaunchAuthority.loginPath)) { request, context in
            let form = try await Self.form(OAuthDocument.LoginForm.self, request, context)
            return shared.launch { launch, _ in launch.login(form) }
        }
        router.post(RouterPath(SMARTLaunchAuthority.consentPath)) { request, context in
            let form = try await Self.form(OAuthDocument.ConsentForm.self, request, context)
            return shared.launch { launch, _ in launch.consent(form) }
        }
        router.post(RouterPath(SMARTLaunchAuthority.revokePath)) { request, context in
            let form = try await Self.form(OAuthDocument.TokenForm.self, request, context)
            return shared.launch { launch, origin in launch.revoke(form, audience: origin + SMARTAuthority.tokenPath) }
        }
    }

    /// A form (`application/x-www-form-urlencoded`) as `type`, by Hummingbird's decoder; a
    /// body it cannot read is refused (400).
    private static func form<Form: Decodable>(_ type: Form.Type, _ request: Request, _ context: BasicRequestContext) async throws -> Form {
        do {
            return try await URLEncodedFormDecoder().decode(type, from: request, context: context)
        } catch {
            throw Refusal(status: 400, text: "the form is not URL-encoded: \(error)")
        }
    }
}

extension SharedState {
    /// `answer` of the authorization server, given the server's origin; 404 where the
    /// options made none.
    func authority(_ answer: (inout AuthorizationServer, String) -> Response) -> Response {
        state.withLock { state in
            let origin = state.origin
            guard state.authority != nil else { return Response(status: .notFound) }
            return answer(&state.authority!, origin)
        }
    }

    /// `answer` of the launch's part of the authorization server, as ``authority(_:)``.
    func launch(_ answer: (inout SMARTLaunchAuthority, String) -> Response) -> Response {
        authority { authority, origin in
            guard authority.launch != nil else { return Response(status: .notFound) }
            return answer(&authority.launch!, origin)
        }
    }
}
