import Clocks
import Foundation
import HTTPServing
import Hummingbird
import Logging
import StrictJSON

/// A small FHIR R4 server on Hummingbird (through `HTTPServing`, as the care app), on loopback only, for tests, demos and benchmarks:
/// what CareSync's exports are checked against where no real server may be reached. Its base
/// URL is `http://127.0.0.1:PORT/fhir/`.
///
/// - `POST` the base with a transaction or batch Bundle: POST entries are created, or with
///   `ifNoneExist: identifier=SYSTEM|VALUE` only if no resource of that type has that
///   identifier (the second identical POST creates nothing); `PUT Type?identifier=…` updates
///   the match or creates one; `PUT Type/id` updates or creates. A transaction with an entry
///   it cannot process changes nothing and answers 400 with an OperationOutcome. The answer
///   is a transaction-response Bundle.
/// - `GET Type[?identifier=S|V][&patient=ID|&subject=REF]` answers a searchset Bundle, in pages
///   of ``Options/pageSize`` linked by `next` (`&page=N`), with the resources that
///   `_include=Type:medication` and `_include=Type:patient` (or `:subject`) ask for after each
///   page's matches; `GET Type/id` the resource.
/// - With ``Options/smart``, a SMART Backend Services authorization server: discovery at
///   `/fhir/.well-known/smart-configuration`, access tokens at `/auth/token` for a signed
///   client assertion (``SMARTAuthority``), and every FHIR request needs a token not expired.
/// - With ``Options/launch``, SMART App Launch for a patient: a login and consent page at
///   `/auth/authorize`, codes exchanged at `/auth/token` with PKCE, refresh tokens, revocation
///   at `/auth/revoke` (``SMARTLaunchAuthority``); a patient's token writes only resources
///   whose subject is that patient.
/// - ``Options`` make POSTs fail (503), hang until the server stops, or be refused.
///
/// Routed by a Hummingbird `Router` (``ServerRouter``); the JSON it reads and writes are
/// `Codable` documents (``FHIRDocument``, ``OAuthDocument``), forms are read by Hummingbird's
/// `URLEncodedFormDecoder`.
///
/// What it holds and what it was asked are read directly (``resources(_:)``, ``requests``).
public final class FHIRTestServer: Sendable {
    public struct Options: Sendable {
        /// These POST requests (counting from 1 those let in: not a token request, not one
        /// refused for its authorization) are answered 503 with an OperationOutcome.
        public var fail: Set<Int> = []
        /// These POST requests get no answer until the server stops.
        public var hang: Set<Int> = []
        /// Every POST is answered with this status and an OperationOutcome.
        public var refuse: Int?
        /// Searchset pages hold at most this many entries.
        public var pageSize = 50
        /// Every request without `Authorization: Bearer TOKEN` is answered 401.
        public var token: String?
        /// The one backend client allowed to ask for access tokens; every FHIR request then needs one.
        public var smart: SMARTClientRegistration?
        /// The one app patients may sign in to (SMART App Launch); every FHIR request then
        /// needs an access token.
        public var launch: SMARTLaunchRegistration?
        /// The file the resources are kept in across restarts: read at start (if it exists)
        /// and written whole after each change.
        public var stateFile: String?
        /// Told of each request once it is answered (or left hanging).
        public var answered: (@Sendable (Request) -> Void)?
        /// The clock access tokens expire by.
        public var clock: any WallClock = .system

        public init(fail: Set<Int> = [], hang: Set<Int> = [], refuse: Int? = nil, pageSize: Int = 50, token: String? = nil) {
            self.fail = fail
            self.hang = hang
            self.refuse = refuse
            self.pageSize = pageSize
            self.token = token
        }
    }

    /// A request as the server received it.
    public struct Request: Sendable {
        public var method: String
        /// The path and query, such as `/fhir/MedicationRequest?patient=p1`.
        public var path: String
        /// The status answered (`nil`: none, it hung).
        public var status: Int?
        /// The entries of the Bundle it carried.
        public var entries: Int
    }

    /// The base URL, with its final slash.
    public let url: String
    private let serving: Task<Void, any Error>
    private let shared: SharedState

    /// Starts a server on `port` (0: any free one) holding the resources of `files` (Bundles
    /// or single resources) and of ``Options/stateFile``.
    public init(loading files: [String] = [], options: Options = Options(), port: Int = 0) async throws {
        var store = ResourceStore()
        let kept = options.stateFile.flatMap { FileManager.default.fileExists(atPath: $0) ? [$0] : nil } ?? []
        for file in files + kept {
            try store.load(JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: file))))
        }
        let shared = SharedState(ServerState(store: store, options: options))
        self.shared = shared
        let (bound, listening) = AsyncStream.makeStream(of: Int?.self)
        let responder = ServerRouter.router(shared, options: options).buildResponder()
        serving = Task {
            defer { listening.finish() }
            try await HTTPServing.run(.http1(), on: .hostname("127.0.0.1", port: port), logger: Self.quiet) { request, channel in
                try await responder.respond(to: request, context: BasicRequestContext(source: .init(channel: channel, logger: Self.quiet)))
            } onRunning: { channel in
                listening.yield(channel.localAddress?.port)
            }
        }
        guard let port = await bound.first(where: { _ in true }) ?? nil else {
            try await serving.value  // the bind's error
            throw Refusal(status: 500, text: "the test server did not start listening")
        }
        shared.state.withLock { $0.port = port }
        url = "http://127.0.0.1:\(port)/fhir/"
    }

    /// The server logs nothing: what it was asked is in ``requests``.
    private static let quiet = Logger(label: "fhir-test-server", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The base URL without its final slash.
    public var base: String { String(url.dropLast()) }

    /// Every request received so far, in order; a request's status is set once it is answered,
    /// just after what it stored is kept (a client has its answer after both).
    public var requests: [Request] { shared.state.withLock { $0.requests } }

    /// The access tokens issued so far.
    public var tokensIssued: Int { shared.state.withLock { $0.authority?.tokensIssued ?? 0 } }

    /// Refuses every refresh token issued so far, as when a patient withdraws consent.
    public func revokeRefreshTokens() {
        shared.state.withLock { $0.authority?.launch?.revokeRefreshTokens() }
    }

    /// Why the token endpoint refused each code or refresh token it refused, in order.
    public var launchRefusals: [String] { shared.state.withLock { $0.authority?.launch?.refusals ?? [] } }

    /// Every code, access and refresh token the launch's authorization server issued, and
    /// every PKCE verifier it received: what no client's log or output may show.
    public var launchSecrets: [String] { shared.state.withLock { $0.authority?.launch?.secrets ?? [] } }

    /// The resources of `type` the server holds.
    public func resources(_ type: String) -> [[String: Any]] {
        let found = shared.state.withLock { state in (try? state.store.search(type, [])) ?? [] }
        return found.compactMap { try? JSONSerialization.jsonObject(with: $0.data) as? [String: Any] }
    }

    /// Makes every access token issued so far expire now, as a server may at any time.
    public func expireTokens() {
        shared.state.withLock { $0.authority?.expireAll() }
    }

    /// Stops listening; connections left hanging are closed with it.
    public func stop() async {
        serving.cancel()
        _ = try? await serving.value
    }

    deinit { serving.cancel() }

    /// The JSON object `data` holds, for tests that read a document the server would.
    public static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Refusal(status: 400, text: "expected a JSON object")
        }
        return object
    }
}
