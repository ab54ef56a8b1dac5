import AsyncHTTPClient
import CareCore
import CarePlanStore
import Foundation
import NIOCore
import Synchronization

/// A browser without the browser: one session's cookie, requests on a client of its own.
final class WebClient: Sendable {
    let base: String
    let cookie: String
    let client: HTTPClient

    private init(base: String, cookie: String, client: HTTPClient) {
        self.base = base
        self.cookie = cookie
        self.client = client
    }

    /// Signs in with a code opened in `store`, as the sign-in page would.
    static func signedIn(base: String, store: CarePlanStore) async throws -> WebClient {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        try await CareCore(store: store).access.openSignInCode("BENCH000", access: .caregiver, expiresAt: Date().addingTimeInterval(600))
        var request = HTTPClientRequest(url: base + "/sign-in")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "code=BENCH000"))
        let response = try await client.execute(request, timeout: .seconds(30))
        guard let cookie = response.headers["Set-Cookie"].first(where: { $0.hasPrefix("caresync_session=") })?.split(separator: ";").first else {
            try await client.shutdown()
            throw BenchmarkFailure("signing in answered \(response.status) without a session")
        }
        return WebClient(base: base, cookie: String(cookie), client: client)
    }

    /// GETs `path` and reads the whole answer.
    func get(_ path: String) async throws -> Int {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Cookie", value: cookie)
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw BenchmarkFailure("GET \(path) answered \(response.status)") }
        return try await response.body.collect(upTo: 16 << 20).readableBytes
    }

    /// Opens `/live` and notes when each revision arrives.
    func openLive() async throws -> LiveRevisions {
        var request = HTTPClientRequest(url: base + "/live")
        request.headers.add(name: "Cookie", value: cookie)
        let response = try await client.execute(request, timeout: .seconds(3600))
        guard response.status == .ok else { throw BenchmarkFailure("/live answered \(response.status)") }
        return LiveRevisions(response.body)
    }

    deinit { try? client.syncShutdown() }
}

/// The revisions an open live stream announced, with when each arrived.
final class LiveRevisions: Sendable {
    private let state = Mutex<(arrivals: [Int: ContinuousClock.Instant], newest: Int?)>(([:], nil))
    private let reading = Mutex<Task<Void, Never>?>(nil)

    init(_ body: HTTPClientResponse.Body) {
        let task = Task { [weak self] in
            var pending = ""
            do {
                for try await chunk in body {
                    let now = ContinuousClock.now
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        let event = pending[..<end.lowerBound]
                        pending = String(pending[end.upperBound...])
                        if let line = event.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }), let revision = Int(line.dropFirst(6)) {
                            self?.note(revision, at: now)
                        }
                    }
                }
            } catch {}
        }
        reading.withLock { $0 = task }
    }

    private func note(_ revision: Int, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.arrivals[revision] = instant
            state.newest = max(state.newest ?? revision, revision)
        }
    }

    /// The newest revision announced.
    var newest: Int? { state.withLock { $0.newest } }

    /// When the first announcement of `revision` or later arrived.
    func arrival(of revision: Int) -> ContinuousClock.Instant? {
        state.withLock { state in state.arrivals.filter { $0.key >= revision }.min { $0.value < $1.value }?.value }
    }

    func close() { reading.withLock { $0 }?.cancel() }
}
