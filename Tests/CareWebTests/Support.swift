import AsyncHTTPClient
import CarePlan
import CarePlanStore
@testable import CareWeb
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
@_exported import TestSupport
import Waiting

/// How a test reaches the care app.
enum WebTransport {
    /// Through its router, as HummingbirdTesting's router mode drives it: no socket, no HTTP
    /// parsing; the app's host is `localhost`.
    case router
    /// The real service listening on loopback (HTTPS with an identity), reached with an HTTP
    /// client: for what is about connections (raw requests, live streams, TLS, idle
    /// connections, shutdown).
    case live
}

/// The care app on a store with a two-activity plan, with the change feed beside it, reached
/// through `transport`; and a client that keeps cookies as a browser does.
final class WebFixture: Sendable {
    static let day = CalendarDay("2026-11-24")!
    let scratch = Scratch()
    let clock: ManualClock
    let store: CarePlanStore
    let server: CareWebServer
    let running: Task<Void, any Error>
    /// Ends `running` gracefully.
    private let shutdown: @Sendable () async -> Void
    /// The router's client, with the router transport.
    private let router: (any TestClientProtocol)?
    let base: String
    private let cookies = Mutex<[String: String]>([:])

    convenience init(_ transport: WebTransport = .router, configure: (inout WebConfiguration) -> Void = { _ in }) async throws {
        try await self.init(transport, configureInScratch: { configuration, _ in configure(&configuration) })
    }

    /// The app, its configuration changed by `configure`, which may keep files in the
    /// fixture's scratch directory.
    init(_ transport: WebTransport = .router, configureInScratch configure: (inout WebConfiguration, Scratch) -> Void) async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_510_800))  // 2026-11-24 09:00 UTC
        self.clock = clock
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: clock)
        let tablets = try Activity(
            identifier: "tablets", kind: .intervention, title: "Tablets", instructions: "With water.",
            schedule: .daily(times: [TimeOfDay("08:00")!, TimeOfDay("20:00")!], start: Self.day))
        let pain = try Activity(
            identifier: "pain", kind: .assessment, title: "Pain", result: .scale(min: 0, max: 10), schedule: .daily(occurrences: 1, start: Self.day))
        try await store.core.plan.load(Plan(title: "Test", timeZone: .gmt, activities: [tablets, pain]), effectiveFrom: Self.day, device: "test")
        let logger = Logger(label: "web-test")
        let feed = StoreChangeFeed(store: store, safetyNet: .milliseconds(20), logger: logger)
        var configuration = WebConfiguration()
        configuration.clock = clock
        configure(&configuration, scratch)
        let server = try CareWebServer(store: store, changes: feed, configuration: configuration, logger: logger)
        self.server = server
        switch transport {
        case .router:
            let client = Eventual<any TestClientProtocol>()
            let finished = Eventual<Void>()
            let application = try server.application(services: [feed])
            running = Task {
                do {
                    try await application.test(.router) { router in
                        client.resolve(.success(router))
                        try await finished.value
                    }
                } catch {
                    client.resolve(.failure(error))
                    throw error
                }
            }
            shutdown = { finished.resolve(.success(())) }
            router = try await client.value
            base = "http://localhost"
        case .live:
            var services = ServiceGroupConfiguration(services: [feed, server], logger: logger)
            services.maximumGracefulShutdownDuration = .seconds(10)
            let group = ServiceGroup(configuration: services)
            running = Task { try await group.run() }
            shutdown = { await group.triggerGracefulShutdown() }
            router = nil
            let address = try await server.boundAddress()
            base = "\(configuration.identity == nil ? "http" : "https")://127.0.0.1:\(address.port ?? 0)"
        }
    }

    /// Stops the app gracefully and waits until it has.
    func stop() async throws {
        await shutdown()
        try await running.value
    }

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    /// A request with this client's cookies (unless not `withCookies`, as a browser sends
    /// none on another site's navigation to a SameSite=Strict cookie's site); the cookies it
    /// sets are kept (redirects are not followed, so that each can be looked at).
    func request(
        _ method: HTTPMethod = .GET, _ path: String, form: [(String, String)]? = nil, headers: [(String, String)] = [],
        withCookies: Bool = true, client: HTTPClient = WebFixture.client
    ) async throws -> Reply {
        if let router { return try await request(method, path, form: form, headers: headers, withCookies: withCookies, through: router) }
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        let jar = withCookies ? cookiesHeader : ""
        if !jar.isEmpty { request.headers.add(name: "Cookie", value: jar) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: TimeAmount(patience))
        keepCookies(response.headers["Set-Cookie"])
        let body = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }

    /// `request` through the router.
    private func request(
        _ method: HTTPMethod, _ path: String, form: [(String, String)]?, headers: [(String, String)], withCookies: Bool,
        through router: any TestClientProtocol
    ) async throws -> Reply {
        var fields = HTTPFields()
        let jar = withCookies ? cookiesHeader : ""
        if !jar.isEmpty { fields[.cookie] = jar }
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        var body: ByteBuffer?
        if let form {
            fields[.contentType] = "application/x-www-form-urlencoded"
            body = ByteBuffer(string: form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&"))
        }
        let response = try await router.executeRequest(uri: path, method: HTTPRequest.Method(method.rawValue)!, headers: fields, body: body)
        keepCookies(response.headers[values: .setCookie])
        let replyHeaders = HTTPHeaders(response.headers.map { ($0.name.rawName, $0.value) })
        return Reply(status: response.status.code, headers: replyHeaders, body: String(buffer: response.body))
    }

    /// Keeps the cookies of `Set-Cookie` headers (an empty value forgets one), as a browser does.
    private func keepCookies(_ headers: [String]) {
        for header in headers {
            guard let pair = header.split(separator: ";").first?.split(separator: "=", maxSplits: 1), pair.count == 2 else { continue }
            let (name, value) = (String(pair[0]), String(pair[1]))
            cookies.withLock { $0[name] = value.isEmpty ? nil : value }
        }
    }

    /// A client that does not follow redirects (each is looked at) and accepts the app's
    /// self-signed certificate under TLS.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.tlsConfiguration = .makeClientConfiguration()
        configuration.tlsConfiguration?.certificateVerification = .none
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The `Cookie` header this client sends.
    var cookiesHeader: String {
        cookies.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
    }

    /// Signs in with a new code of `access`; returns the care card's HTML.
    @discardableResult
    func signIn(_ access: WebAccess = .caregiver) async throws -> String {
        let code = "K7QM2XR" + String("ABCDEFGH".randomElement()!)
        try await store.core.access.openSignInCode(code, access: access, expiresAt: clock.now.addingTimeInterval(600))
        let reply = try await request(.POST, "/sign-in", form: [("code", code), ("name", "Test")])
        guard reply.status == 303 else { throw WebTestFailure("sign-in answered \(reply.status): \(reply.body)") }
        return try await request(.GET, "/").body
    }

    /// The value of the first hidden field `name` in `html`.
    static func field(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The fields of the form that records `event` (`activity@day#occurrence`) in `html`.
    static func outcomeForm(_ event: String, in html: String) -> [(String, String)]? {
        guard let start = html.range(of: "data-event=\"\(event)\""),
              let end = html[start.upperBound...].range(of: "</form>") else { return nil }
        let form = String(html[start.upperBound..<end.lowerBound])
        return ["csrf", "message", "activity", "day", "occurrence", "return", "state"].compactMap { name in
            field(name, in: form).map { (name, $0) }
        }
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

struct WebTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An open `/live` stream, read as it arrives.
final class LiveReader: Sendable {
    private struct State {
        var text = ""
        var consumed = "".startIndex
        var ended = false
    }

    private let reading: Task<Void, Never>

    init(_ response: HTTPClientResponse) {
        let box = Box()
        reading = Task {
            do {
                for try await chunk in response.body { box.append(String(buffer: chunk)) }
            } catch {}
            box.end()
        }
        self.box = box
    }

    /// What the reading task has seen, shared with it.
    private final class Box: Sendable {
        let state = Mutex(State())
        func append(_ text: String) { state.withLock { $0.text += text } }
        func end() { state.withLock { $0.ended = true } }
    }

    private let box: Box

    /// The text up to and including the first unread event holding `text`, once it came.
    func next(containing text: String) async throws -> String {
        try await waitFor("\"\(text)\" on the live stream", every: .milliseconds(10)) {
            box.state.withLock { state in
                guard let range = state.text[state.consumed...].range(of: text) else { return .notYet(state.text) }
                let end = state.text[range.upperBound...].range(of: "\n\n")?.upperBound ?? range.upperBound
                defer { state.consumed = end }
                return .found(String(state.text[state.consumed..<end]))
            }
        }
    }

    /// Returns once the server has ended the stream.
    func ended() async throws {
        try await waitFor("the end of the live stream", every: .milliseconds(10), seen: { self.box.state.withLock { $0.text } }) {
            box.state.withLock { $0.ended }
        }
    }

    deinit { reading.cancel() }
}

extension WebFixture {
    /// Opens `/live` with this client's cookies, or those of `cookie`.
    func openLive(cookie: String? = nil) async throws -> LiveReader {
        precondition(router == nil, "a live stream needs the live transport")
        var request = HTTPClientRequest(url: base + "/live")
        let jar = cookie ?? cookiesHeader
        if !jar.isEmpty { request.headers.add(name: "Cookie", value: jar) }
        let response = try await Self.client.execute(request, timeout: TimeAmount(patience))
        guard response.status == .ok else { throw WebTestFailure("/live answered \(response.status)") }
        return LiveReader(response)
    }
}

extension WebFixture {
    /// The port the app listens on (the live transport only).
    var port: Int {
        precondition(router == nil, "the router transport has no port")
        return Int(base.split(separator: ":").last!)!
    }

    /// `request` sent as written (`\n` becomes CRLF; `Connection: close` and the blank line
    /// are added) on a socket of its own: a path or `Host` no HTTP client would send. The
    /// answer, whole, once the app closed the connection.
    func raw(_ request: String) async throws -> String {
        let socket = try RawSocket(port: port)
        let text = request.replacingOccurrences(of: "\n", with: "\r\n") + "\r\nConnection: close\r\n\r\n"
        try socket.send(Array(text.utf8))
        let (bytes, closed) = await socket.receiveAll()
        guard closed else { throw WebTestFailure("the app kept the connection open after: \(request)") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
