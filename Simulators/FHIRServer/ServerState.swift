import Foundation
import HTTPTypes
import Hummingbird
import StrictJSON

/// An answer the server gives instead of a result.
struct Refusal: Error {
    var status: Int
    var text: String
}

/// The server's resources and the requests it has answered.
struct ServerState: Sendable {
    var store: ResourceStore
    var options: FHIRTestServer.Options
    var requests: [FHIRTestServer.Request] = []
    /// The port it listens on, for the links it writes.
    var port = 0

    /// The POSTs that passed authorization, which ``FHIRTestServer/Options/fail`` and
    /// ``FHIRTestServer/Options/hang`` count.
    private var postsLetIn = 0
    /// The authorization server, with ``FHIRTestServer/Options/smart`` or
    /// ``FHIRTestServer/Options/launch``.
    var authority: AuthorizationServer?

    init(store: ResourceStore, options: FHIRTestServer.Options) {
        self.store = store
        self.options = options
        if options.smart != nil || options.launch != nil {
            authority = AuthorizationServer(
                backend: options.smart.map { SMARTAuthority(registration: $0, clock: options.clock) },
                launch: options.launch.map { SMARTLaunchAuthority(registration: $0, clock: options.clock) })
        }
    }

    /// The server's own origin, which its token endpoint and links name.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// What becomes of a FHIR request before its route.
    enum Admission {
        /// Let in, the POST counted this many (0: not a POST).
        case letIn(posts: Int)
        /// Answered at once: refused, or failed on purpose.
        case answered(Response)
        /// Left without an answer until the server stops.
        case hang
    }

    /// Whether a FHIR request is let in: its token, a patient's token writing only for that
    /// patient, then the POSTs ``FHIRTestServer/Options/fail`` and ``FHIRTestServer/Options/hang`` name.
    mutating func admit(_ method: HTTPRequest.Method, authorization: String?, body: Data) -> Admission {
        if let refusal = unauthorized(authorization) {
            return .answered(.outcome(401, refusal, code: "login", headers: [
                .wwwAuthenticate: "Bearer error=\"invalid_token\", error_description=\"\(refusal)\"",
            ]))
        }
        if method == .post, let patient = authority?.patient(authorization),
           let stranger = Self.firstSubject(in: body, otherThan: "Patient/\(patient)") {
            return .answered(.outcome(403, "the patient's token cannot write for \(stranger)", code: "forbidden"))
        }
        // Counted once let in: a refused request or a token request is not one of `fail`'s.
        guard method == .post else { return .letIn(posts: 0) }
        postsLetIn += 1
        if options.hang.contains(postsLetIn) { return .hang }
        if options.fail.contains(postsLetIn) { return .answered(.outcome(503, "the test server fails this request on purpose", code: "transient")) }
        return .letIn(posts: postsLetIn)
    }

    /// Why a FHIR request with this `Authorization` header is not let in, if it is not.
    private func unauthorized(_ authorization: String?) -> String? {
        if let token = options.token, authorization != "Bearer \(token)" { return "the test server needs its bearer token" }
        if let authority { return authority.refusal(authorization) }
        return nil
    }

    /// The first `subject` or `patient` reference of a Bundle's resources that is not `own`.
    private static func firstSubject(in body: Data, otherThan own: String) -> String? {
        let entries = (try? JSONDecoder().decode(JSONValue.self, from: body))?["entry"]?.array ?? []
        for resource in entries.compactMap({ $0["resource"] }) where resource.object != nil {
            for key in ["subject", "patient"] {
                if let reference = resource[key]?["reference"]?.string, reference != own { return reference }
            }
        }
        return nil
    }

    /// Applies a posted transaction or batch Bundle, unless ``FHIRTestServer/Options/refuse`` says no.
    mutating func transaction(_ body: Data) throws -> Response {
        if let refuse = options.refuse { throw Refusal(status: refuse, text: "the test server refuses every transaction") }
        return .json(200, try store.transaction(try JSONDecoder().decode(FHIRDocument.Transaction.self, from: body)))
    }

    /// The resource `type/id`.
    func read(_ type: String, _ id: String) throws -> Response {
        guard let resource = store.resources[ResourceStore.Key(type: type, id: id)] else { throw Refusal(status: 404, text: "no \(type)/\(id)") }
        return .json(200, resource)
    }

    /// One page of a search: `page` (from 1) of ``FHIRTestServer/Options/pageSize``, with a
    /// `next` link while more follow. `target` is the request's path and query.
    func searchset(_ type: String, target: String) throws -> Response {
        let components = URLComponents(string: target)
        let query = (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        let found = try store.search(type, query.filter { !$0.0.hasPrefix("_") && $0.0 != "page" })
        let page = max(1, Int(query.last { $0.0 == "page" }?.1 ?? "") ?? 1)
        let slice = Array(found.dropFirst((page - 1) * options.pageSize).prefix(options.pageSize))
        let includes = query.filter { $0.0 == "_include" }.map(\.1)
        let included = try store.included(by: slice, type: type, includes)
        var bundle = FHIRDocument.SearchSet(
            total: found.count, entry: slice.map { .init($0, mode: "match") } + included.map { .init($0, mode: "include") })
        if page * options.pageSize < found.count {
            let parameters = query.filter { $0.0 != "page" } + [("page", "\(page + 1)")]
            var next = URLComponents()
            next.scheme = "http"
            next.host = "127.0.0.1"
            next.port = port
            next.path = components?.path ?? ""
            next.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
            bundle.link = [.init(relation: "next", url: next.string ?? "")]
        }
        return .json(200, bundle)
    }
}

extension HTTPField.Name {
    static let wwwAuthenticate = Self("WWW-Authenticate")!
}
