import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small FHIR server for the tests, in this process on SwiftNIO, on 127.0.0.1 only. Its
/// base URL is `http://127.0.0.1:PORT/fhir/`.
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
/// - ``Options`` make POSTs fail (503), hang until the server stops, or be refused.
///
/// What it holds and what it was asked are read directly (``resources(_:)``, ``requests``).
/// The resources it answers with are checked by the independent Python validator elsewhere.
final class FHIRTestServer: Sendable {
    struct Options: Sendable {
        /// These POST requests (counting from 1) are answered 503 with an OperationOutcome.
        var fail: Set<Int> = []
        /// These POST requests get no answer until the server stops.
        var hang: Set<Int> = []
        /// Every POST is answered with this status and an OperationOutcome.
        var refuse: Int?
        /// Searchset pages hold at most this many entries.
        var pageSize = 50
        /// Every request without `Authorization: Bearer TOKEN` is answered 401.
        var token: String?
    }

    /// A request as the server received it.
    struct Request: Sendable {
        var method: String
        /// The path and query, such as `/fhir/MedicationRequest?patient=p1`.
        var path: String
        /// The status answered (`nil`: none, it hung).
        var status: Int?
        /// The entries of the Bundle it carried.
        var entries: Int
    }

    /// The base URL, with its final slash.
    let url: String
    private let channel: any Channel
    private let shared: Shared

    /// The state the connections' handlers share with the server.
    private final class Shared: Sendable {
        let state: Mutex<ServerState>

        init(_ state: ServerState) {
            self.state = Mutex(state)
        }
    }

    /// Starts a server holding the resources of `files` (Bundles or single resources).
    init(loading files: [String] = [], options: Options = Options()) async throws {
        var store = ResourceStore()
        for file in files {
            let document = try Self.object(Data(contentsOf: URL(fileURLWithPath: file)))
            let entries = document["resourceType"] as? String == "Bundle" ? document["entry"] as? [[String: Any]] ?? [] : [["resource": document]]
            for resource in entries.compactMap({ $0["resource"] as? [String: Any] }) {
                _ = store.put(resource["resourceType"] as? String ?? "", resource, id: resource["id"] as? String)
            }
        }
        let shared = Shared(ServerState(store: store, options: options))
        self.shared = shared
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(HTTPHandler(respond: { method, path, body, authorization in
                        shared.state.withLock { $0.respond(method, path, body, authorization: authorization) }
                    }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        shared.state.withLock { $0.port = port }
        url = "http://127.0.0.1:\(port)/fhir/"
    }

    /// The base URL without its final slash.
    var base: String { String(url.dropLast()) }

    /// Every request received so far, in order.
    var requests: [Request] { shared.state.withLock { $0.requests } }

    /// The resources of `type` the server holds.
    func resources(_ type: String) -> [[String: Any]] {
        shared.state.withLock { state in ((try? state.store.search(type, [])) ?? []).map(\.object) }
    }

    /// Stops listening; connections left hanging are closed with it.
    func stop() async {
        try? await channel.close()
    }

    deinit { channel.close(promise: nil) }

    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Refusal(status: 400, text: "expected a JSON object")
        }
        return object
    }
}

/// An answer the server gives instead of a result.
private struct Refusal: Error {
    var status: Int
    var text: String
}

/// A FHIR resource as JSON; only ever touched under the server's lock.
private struct Resource: @unchecked Sendable {
    var object: [String: Any]
}

/// The server's resources and the requests it has answered.
private struct ServerState: Sendable {
    var store: ResourceStore
    var options: FHIRTestServer.Options
    var requests: [FHIRTestServer.Request] = []
    /// The port it listens on, for the links it writes.
    var port = 0

    /// The answer to one request: a status and a JSON body, or `nil` to leave it hanging.
    mutating func respond(_ method: HTTPMethod, _ path: String, _ body: Data, authorization: String?) -> (status: Int, body: Data)? {
        let entries = ((try? FHIRTestServer.object(body))?["entry"] as? [Any])?.count ?? 0
        requests.append(FHIRTestServer.Request(method: method.rawValue, path: path, status: nil, entries: entries))
        if let token = options.token, authorization != "Bearer \(token)" {
            requests[requests.count - 1].status = 401
            let outcome = Self.outcome("the test server needs its bearer token", code: "login")
            return (401, (try? JSONSerialization.data(withJSONObject: outcome, options: [.sortedKeys])) ?? Data())
        }
        let posts = method == .POST ? requests.count { $0.method == "POST" } : 0
        if options.hang.contains(posts) { return nil }
        let (status, answer): (Int, [String: Any])
        do {
            (status, answer) = try answering(method, path, body, posts: posts)
        } catch let refusal as Refusal {
            (status, answer) = (refusal.status, Self.outcome(refusal.text))
        } catch {
            (status, answer) = (400, Self.outcome("malformed request: \(error)", code: "structure"))
        }
        requests[requests.count - 1].status = status
        return (status, (try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])) ?? Data())
    }

    private mutating func answering(_ method: HTTPMethod, _ target: String, _ body: Data, posts: Int) throws -> (Int, [String: Any]) {
        if options.fail.contains(posts) {
            return (503, Self.outcome("the test server fails this request on purpose", code: "transient"))
        }
        guard let components = URLComponents(string: target), components.path.hasPrefix("/fhir") else {
            throw Refusal(status: 404, text: "the test server answers below /fhir/ only")
        }
        let path = components.path.dropFirst("/fhir".count).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        switch (method, path) {
        case (.POST, ""):
            if let refuse = options.refuse { throw Refusal(status: refuse, text: "the test server refuses every transaction") }
            return (200, try store.transaction(try FHIRTestServer.object(body)))
        case (.GET, let path) where path.contains("/"):
            let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
            guard let resource = store.resources[ResourceStore.Key(type: parts[0], id: parts[1])] else {
                throw Refusal(status: 404, text: "no \(path)")
            }
            return (200, resource.object)
        case (.GET, let type) where !type.isEmpty:
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

/// The resources by type and id, with FHIR's search by identifier and patient.
private struct ResourceStore: Sendable {
    struct Key: Hashable, Comparable, Sendable {
        var type: String
        var id: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.type, lhs.id) < (rhs.type, rhs.id) }
    }

    var resources: [Key: Resource] = [:]
    var nextID = 1

    /// The resources of `type` that match every (name, value) of `query`, by id.
    func search(_ type: String, _ query: [(String, String)]) throws -> [Resource] {
        var found = resources.filter { $0.key.type == type }.sorted { $0.key < $1.key }.map(\.value)
        for (name, value) in query {
            found = try found.filter { try Self.matches($0.object, name, value) }
        }
        return found
    }

    private static func matches(_ resource: [String: Any], _ name: String, _ value: String) throws -> Bool {
        switch name {
        case "identifier":
            let (system, code) = splitToken(value)
            return (resource["identifier"] as? [[String: Any]] ?? []).contains {
                $0["value"] as? String == code && (system == nil || $0["system"] as? String == system)
            }
        case "patient", "subject":
            let reference = ((resource["subject"] ?? resource["patient"]) as? [String: Any])?["reference"] as? String ?? ""
            return reference == value || reference == "Patient/\(value)"
        default:
            throw Refusal(status: 400, text: "the test server cannot search by \(name)")
        }
    }

    /// `SYSTEM|VALUE` as FHIR search escapes it (`\|`, `\,`, `\$`, `\\`) into its two parts.
    private static func splitToken(_ token: String) -> (system: String?, value: String) {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in token {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" && parts.isEmpty {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        return parts.isEmpty ? (nil, current) : (parts[0], current)
    }

    /// The resources that `includes` (`Type:medication`, `Type:patient`, `Type:subject`)
    /// name from `matches`, each once.
    func included(by matches: [Resource], type: String, _ includes: [String]) throws -> [Resource] {
        var keys: [Key] = []
        for include in includes {
            let element: [String] = switch include {
            case "\(type):medication": ["medicationReference"]
            case "\(type):patient", "\(type):subject": ["subject", "patient"]
            default: throw Refusal(status: 400, text: "the test server cannot include \(include)")
            }
            for match in matches {
                let reference = element.lazy.compactMap { (match.object[$0] as? [String: Any])?["reference"] as? String }.first
                let parts = reference?.split(separator: "/").map(String.init) ?? []
                if parts.count == 2, resources[Key(type: parts[0], id: parts[1])] != nil, !keys.contains(Key(type: parts[0], id: parts[1])) {
                    keys.append(Key(type: parts[0], id: parts[1]))
                }
            }
        }
        return keys.compactMap { resources[$0] }
    }

    /// Stores `resource` under `id` (a new one if `nil`), a version higher than before.
    mutating func put(_ type: String, _ resource: [String: Any], id: String?) -> [String: Any] {
        let id = id ?? {
            defer { nextID += 1 }
            return "\(nextID)"
        }()
        let key = Key(type: type, id: id)
        let previous = resources[key]
        let version = ((previous?.object["meta"] as? [String: Any])?["versionId"] as? String).flatMap { Int($0) }.map { $0 + 1 } ?? 1
        var stored = resource
        stored["id"] = id
        stored["meta"] = ["versionId": "\(version)"]
        resources[key] = Resource(object: stored)
        return ["status": previous == nil ? "201 Created" : "200 OK", "location": "\(type)/\(id)/_history/\(version)"]
    }

    /// Applies a transaction or batch Bundle whole, or nothing of it.
    mutating func transaction(_ bundle: [String: Any]) throws -> [String: Any] {
        guard bundle["resourceType"] as? String == "Bundle", let kind = bundle["type"] as? String,
              ["transaction", "batch"].contains(kind)
        else { throw Refusal(status: 400, text: "expected a transaction or batch Bundle") }
        var staged = self
        var responses: [[String: Any]] = []
        for entry in bundle["entry"] as? [[String: Any]] ?? [] {
            responses.append(["response": try staged.apply(entry)])
        }
        self = staged
        return ["resourceType": "Bundle", "type": "\(kind)-response", "entry": responses]
    }

    private mutating func apply(_ entry: [String: Any]) throws -> [String: Any] {
        let request = entry["request"] as? [String: Any] ?? [:]
        let resource = entry["resource"] as? [String: Any] ?? [:]
        let target = URLComponents(string: request["url"] as? String ?? "")
        let path = (target?.path ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        let type = parts.first ?? ""
        guard resource["resourceType"] as? String == type else {
            throw Refusal(status: 400, text: "entry for \(path) holds a \(resource["resourceType"] ?? "nothing")")
        }
        switch request["method"] as? String {
        case "POST":
            let condition = URLComponents(string: "?" + (request["ifNoneExist"] as? String ?? ""))?.queryItems ?? []
            let existing = condition.isEmpty ? [] : try search(type, condition.map { ($0.name, $0.value ?? "") })
            guard existing.count <= 1 else { throw Refusal(status: 412, text: "ifNoneExist matches \(existing.count) resources") }
            if let match = existing.first { return ["status": "200 OK", "location": "\(type)/\(match.object["id"] ?? "")"] }
            return put(type, resource, id: nil)
        case "PUT":
            var id = parts.count > 1 ? parts[1] : nil
            if let query = target?.queryItems, !query.isEmpty {
                let existing = try search(type, query.map { ($0.name, $0.value ?? "") })
                guard existing.count <= 1 else { throw Refusal(status: 412, text: "conditional update matches \(existing.count) resources") }
                id = existing.first?.object["id"] as? String
            }
            return put(type, resource, id: id)
        default:
            throw Refusal(status: 400, text: "the test server does not process \(request["method"] ?? "no") entries")
        }
    }
}

/// One HTTP/1.1 connection: each whole request answered as `respond` says, or left hanging.
private final class HTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (HTTPMethod, String, Data, String?) -> (status: Int, body: Data)?
    private var head: HTTPRequestHead?
    private var body = Data()

    init(respond: @escaping @Sendable (HTTPMethod, String, Data, String?) -> (status: Int, body: Data)?) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let bytes):
            body.append(contentsOf: bytes.readableBytesView)
        case .end:
            guard let head, let (status, answer) = respond(head.method, head.uri, body, head.headers.first(name: "Authorization")) else { return }
            var headers = HTTPHeaders([("Content-Type", "application/fhir+json"), ("Content-Length", "\(answer.count)")])
            if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .init(statusCode: status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer)))), promise: nil)
            let closing = !head.isKeepAlive
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                if closing { context.close(promise: nil) }
            }
        }
    }
}
