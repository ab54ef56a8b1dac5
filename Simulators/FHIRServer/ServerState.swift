import Foundation
import HTTPTypes

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

    /// The answer to one request, or `nil` to leave it hanging.
    mutating func respond(_ request: ServedRequest) -> HTTPAnswer? {
        let entries = ((try? FHIRTestServer.object(request.body))?["entry"] as? [Any])?.count ?? 0
        requests.append(FHIRTestServer.Request(method: request.method.rawValue, path: request.target, status: nil, entries: entries))
        let answer = answer(request)
        requests[requests.count - 1].status = answer?.status
        return answer
    }

    private mutating func answer(_ request: ServedRequest) -> HTTPAnswer? {
        if let answer = authority?.answer(request, base: "http://127.0.0.1:\(port)") { return answer }
        if let refusal = unauthorized(request.headers[.authorization]) {
            return HTTPAnswer(
                status: 401, body: Self.json(Self.outcome(refusal, code: "login")),
                headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\"\(refusal)\"")])
        }
        if request.method == .post, let patient = authority?.patient(request.headers[.authorization]),
           let stranger = Self.firstSubject(in: request.body, otherThan: "Patient/\(patient)") {
            return HTTPAnswer(status: 403, body: Self.json(Self.outcome("the patient's token cannot write for \(stranger)", code: "forbidden")))
        }
        // Counted once let in: a refused request or a token request is not one of `fail`'s.
        if request.method == .post { postsLetIn += 1 }
        let posts = request.method == .post ? postsLetIn : 0
        if options.hang.contains(posts) { return nil }
        let (status, answer): (Int, [String: Any])
        do {
            (status, answer) = try answering(request.method, request.target, request.body, posts: posts)
        } catch let refusal as Refusal {
            (status, answer) = (refusal.status, Self.outcome(refusal.text))
        } catch {
            (status, answer) = (400, Self.outcome("malformed request: \(error)", code: "structure"))
        }
        if request.method != .get, status < 300, let file = options.stateFile, (try? store.save(to: file)) == nil {
            return HTTPAnswer(status: 500, body: Self.json(Self.outcome("the test server cannot write \(file)", code: "exception")))
        }
        return HTTPAnswer(status: status, body: Self.json(answer))
    }

    /// Why a FHIR request with this `Authorization` header is not let in, if it is not.
    private func unauthorized(_ authorization: String?) -> String? {
        if let token = options.token, authorization != "Bearer \(token)" { return "the test server needs its bearer token" }
        if let authority { return authority.refusal(authorization) }
        return nil
    }

    /// The first `subject` or `patient` reference of a Bundle's resources that is not `own`.
    private static func firstSubject(in body: Data, otherThan own: String) -> String? {
        let entries = ((try? FHIRTestServer.object(body))?["entry"] as? [[String: Any]]) ?? []
        for resource in entries.compactMap({ $0["resource"] as? [String: Any] }) {
            for key in ["subject", "patient"] {
                if let reference = (resource[key] as? [String: Any])?["reference"] as? String, reference != own { return reference }
            }
        }
        return nil
    }

    static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    private mutating func answering(_ method: HTTPRequest.Method, _ target: String, _ body: Data, posts: Int) throws -> (Int, [String: Any]) {
        if options.fail.contains(posts) {
            return (503, Self.outcome("the test server fails this request on purpose", code: "transient"))
        }
        guard let components = URLComponents(string: target), components.path.hasPrefix("/fhir") else {
            throw Refusal(status: 404, text: "the test server answers below /fhir/ only")
        }
        let path = components.path.dropFirst("/fhir".count).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        switch (method, path) {
        case (.post, ""):
            if let refuse = options.refuse { throw Refusal(status: refuse, text: "the test server refuses every transaction") }
            return (200, try store.transaction(try FHIRTestServer.object(body)))
        case (.get, let path) where path.contains("/"):
            let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
            guard let resource = store.resources[ResourceStore.Key(type: parts[0], id: parts[1])] else {
                throw Refusal(status: 404, text: "no \(path)")
            }
            return (200, resource.object)
        case (.get, let type) where !type.isEmpty:
            let query = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
            return (200, try searchset(type, query, base: components.path))
        default:
            throw Refusal(status: 404, text: "the test server does not answer \(method.rawValue) \(components.path)")
        }
    }

    /// One page of a search: `page` (from 1) of ``FHIRTestServer/Options/pageSize``, with a
    /// `next` link while more follow.
    private func searchset(_ type: String, _ query: [(String, String)], base: String) throws -> [String: Any] {
        let found = try store.search(type, query.filter { !$0.0.hasPrefix("_") && $0.0 != "page" })
        let page = max(1, Int(query.last { $0.0 == "page" }?.1 ?? "") ?? 1)
        let slice = Array(found.dropFirst((page - 1) * options.pageSize).prefix(options.pageSize))
        let includes = query.filter { $0.0 == "_include" }.map(\.1)
        let included = try store.included(by: slice, type: type, includes)
        var bundle: [String: Any] = [
            "resourceType": "Bundle", "type": "searchset", "total": found.count,
            "entry": slice.map { Self.entry($0, mode: "match") } + included.map { Self.entry($0, mode: "include") },
        ]
        if page * options.pageSize < found.count {
            let parameters = query.filter { $0.0 != "page" } + [("page", "\(page + 1)")]
            var next = URLComponents()
            next.scheme = "http"
            next.host = "127.0.0.1"
            next.port = port
            next.path = base
            next.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
            bundle["link"] = [["relation": "next", "url": next.string ?? ""]]
        }
        return bundle
    }

    private static func entry(_ resource: Resource, mode: String) -> [String: Any] {
        let object = resource.object
        return ["fullUrl": "\(object["resourceType"] ?? "")/\(object["id"] ?? "")", "resource": object, "search": ["mode": mode]]
    }

    static func outcome(_ text: String, code: String = "processing") -> [String: Any] {
        ["resourceType": "OperationOutcome", "issue": [["severity": "error", "code": code, "diagnostics": text]]]
    }
}

