@testable import CareWeb
import CarePlan
import CarePlanStore
import Foundation
import NodeIdentity
import Synchronization
import Testing
import TestSupport

/// The care app as an attacker on the network tries it: every request here is one a
/// browser would not send, or sends only when tricked.
struct SecurityTests {
    /// Choosing a language redirects to a path of this app only, never to `//host` or
    /// `/\host`, which browsers follow to another site; other parameters are kept.
    @Test func theLanguageRedirectStaysOnThisApp() async throws {
        let web = try await WebFixture(.live)
        let host = "Host: 127.0.0.1:\(web.port)"
        for (path, location) in [
            ("//localhost:45999/phish.html?lang=de", "/"), ("/\\localhost:45999/phish.html?lang=en", "/"),
            ("/%2F%2Flocalhost/x?lang=de", "/%2F%2Flocalhost/x"), ("/insights?days=7&lang=de", "/insights?days=7"),
        ] {
            let answer = try await web.raw("GET \(path) HTTP/1.1\n\(host)")
            #expect(answer.hasPrefix("HTTP/1.1 303"), "\(path): \(answer)")
            #expect(answer.lowercased().contains("\r\nlocation: \(location.lowercased())\r\n"), "\(path): \(answer)")
        }
        try await web.stop()
    }

    /// A `Host` the app is not served under is refused, with or without a matching
    /// `Origin` (DNS rebinding); its own address and `localhost` are served.
    @Test func aForeignHostIsRefused() async throws {
        let web = try await WebFixture(.live)
        let evil = "evil.example:\(web.port)"
        let get = try await web.raw("GET /sign-in HTTP/1.1\nHost: \(evil)")
        #expect(get.hasPrefix("HTTP/1.1 421"), "\(get)")
        #expect(get.contains("not served under that name"))
        let post = try await web.raw("POST /sign-in HTTP/1.1\nHost: \(evil)\nOrigin: http://\(evil)\nContent-Length: 0")
        #expect(post.hasPrefix("HTTP/1.1 421"), "\(post)")
        let none = try await web.raw("GET /sign-in HTTP/1.0")
        #expect(none.hasPrefix("HTTP/1.1 421") || none.hasPrefix("HTTP/1.0 421"), "\(none)")
        for name in ["127.0.0.1:\(web.port)", "localhost:\(web.port)", "LOCALHOST"] {
            let served = try await web.raw("GET /sign-in HTTP/1.1\nHost: \(name)")
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(name): \(served)")
        }
        try await web.stop()
        let named = try await WebFixture(.live) { $0.serverNames = ["care.local"] }
        #expect(try await named.raw("GET /sign-in HTTP/1.1\nHost: care.local:\(named.port)").hasPrefix("HTTP/1.1 200"))
        try await named.stop()
    }

    /// One session opening 200 live streams in a row keeps only its newest few (the older
    /// ones are told they were replaced), and another session's stream works throughout.
    @Test func oneSessionsStreamsNeverCrowdOutAnothers() async throws {
        let web = try await WebFixture(.live) { $0.maximumLiveStreams = 12 }  // read-only sessions hold 6 at most
        try await web.signIn(.household)
        let household = web.cookiesHeader
        try await web.signIn()
        let caregiver = try await web.openLive()
        _ = try await caregiver.next(containing: "event: revision")
        var opened: [LiveReader] = []
        for _ in 0..<200 {
            let stream = try await web.openLive(cookie: household)
            _ = try await stream.next(containing: "event: revision")
            opened.append(stream)
        }
        for stream in opened.dropLast(6) {
            _ = try await stream.next(containing: "event: replaced")
            try await stream.ended()
        }
        let revision = try await web.record(EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0))
        _ = try await caregiver.next(containing: "event: revision\ndata: \(revision)")
        for stream in opened.suffix(6) {
            _ = try await stream.next(containing: "event: revision\ndata: \(revision)")
        }
        try await web.stop()
    }

    /// A stream whose client went is freed at once, not at its next heartbeat: with room for
    /// one, a second opens as soon as the first's connection closed.
    @Test func aStreamIsFreedTheMomentItsClientGoes() async throws {
        let web = try await WebFixture(.live) {
            $0.maximumLiveStreams = 1
            $0.liveHeartbeat = .seconds(3600)
        }
        try await web.signIn()
        let socket = try RawSocket(port: web.port)
        try socket.send(Array("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(web.cookiesHeader)\r\n\r\n".utf8))
        let first = await socket.receiveAll { String(decoding: $0, as: UTF8.self).contains("event: revision") }
        #expect(String(decoding: first.bytes, as: UTF8.self).contains("event: revision"))
        #expect(try await web.request(.GET, "/live", headers: [("Accept", "application/json")]).status == 503)
        socket.close()
        // Waited for as a condition: the place is free once the app saw the connection close.
        _ = try await waitFor("the closed stream's place freed") { () async throws -> Sighting<LiveReader> in
            do { return .found(try await web.openLive()) } catch { return .notYet("\(error)") }
        }
        try await web.stop()
    }

    /// Signing out ends the session's open streams at once, telling each page; a session
    /// revoked elsewhere (the CLI, another process) is told by the next commit.
    @Test func aSessionThatEndsIsToldOnItsStreams() async throws {
        let web = try await WebFixture(.live) { $0.liveHeartbeat = .seconds(3600) }
        let card = try await web.signIn()
        let stream = try await web.openLive()
        _ = try await stream.next(containing: "event: revision")
        let token = try #require(WebFixture.field("csrf", in: card))
        #expect(try await web.request(.POST, "/sign-out", form: [("csrf", token)]).status == 303)
        _ = try await stream.next(containing: "event: signed-out")
        try await stream.ended()

        try await web.signIn()
        let revoked = try await web.openLive()
        _ = try await revoked.next(containing: "event: revision")
        let session = try #require(try await web.store.webSessions.all().first { $0.revokedAt == nil })
        _ = try await web.store.core.access.revokeWebSession(session.shortID)
        let revision = try await web.record(EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 1))
        let told = try await revoked.next(containing: "event: signed-out")
        #expect(!told.contains("data: \(revision)"), "a revision after the session ended: \(told)")
        try await revoked.ended()
        try await web.stop()
    }

    /// A connection that sends no whole request within the idle timeout is closed: one
    /// that sends nothing, and one that trickles its headers a byte at a time.
    @Test func idleAndSlowConnectionsAreClosed() async throws {
        let web = try await WebFixture(.live) { $0.idleTimeout = .milliseconds(500) }
        let idle = try RawSocket(port: web.port)
        let slow = try RawSocket(port: web.port)
        let trickle = Task {
            for byte in "GET /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8 {
                guard (try? slow.send([byte])) != nil else { return }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(await idle.receiveAll().closed)
        #expect(await slow.receiveAll().closed)
        trickle.cancel()
        try await web.stop()
    }

    /// Issue 53, item 6: a form whose chunked body is malformed is the client's bad request
    /// (400), not the app's failure (500), and records nothing.
    @Test func aMalformedChunkedBodyIsABadRequest() async throws {
        let web = try await WebFixture(.live)
        try await web.signIn()
        let revision = try await web.store.revision()
        let socket = try RawSocket(port: web.port)
        let request = "POST /outcomes HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(web.cookiesHeader)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "zz\r\nactivity=tablets\r\n0\r\n\r\n"
        try socket.send(Array(request.utf8))
        let (bytes, _) = await socket.receiveAll()
        let answer = String(decoding: bytes, as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
        #expect(try await web.store.revision() == revision)
        try await web.stop()
    }

    /// Reports print one at a time: while one prints, `capacity` wait and the rest are
    /// refused at once as busy; the waiting ones print in turn.
    @Test(.timeLimit(.minutes(1)))
    func reportsPrintOneAtATimeWithABoundedQueue() async throws {
        let queue = PrintQueue(capacity: 2)
        let gate = Gate()
        let printing = Counter()
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<6 {
                group.addTask {
                    do {
                        return try await queue.run {
                            #expect(printing.increment() == 1, "two prints at once")
                            await gate.wait()
                            printing.decrement()
                            return "printed \(index)"
                        }
                    } catch WebFailure.printerBusy {
                        return "busy"
                    }
                }
            }
            var results: [String] = []
            for try await result in group {
                results.append(result)
                if results.count == 3 { gate.open() }
            }
            return results
        }
        #expect(outcomes.filter { $0 == "busy" }.count == 3)
        #expect(outcomes.filter { $0.hasPrefix("printed") }.count == 3)
    }

    /// Every answer under TLS tells the browser to keep to HTTPS.
    @Test func httpsAnswersCarryStrictTransportSecurity() async throws {
        let identity = try NodeIdentity.create(name: "Web test primary", now: Date())
        let web = try await WebFixture(.live) { $0.identity = identity }
        let reply = try await web.request(.GET, "/sign-in")
        #expect(reply.headers["Strict-Transport-Security"] == ["max-age=31536000"])
        try await web.stop()
        let plain = try await WebFixture(.live)
        #expect(try await plain.request(.GET, "/sign-in").headers["Strict-Transport-Security"].isEmpty)
        try await plain.stop()
    }
}

extension WebFixture {
    /// Records `key` as done in the store, as another device would; returns the revision.
    func record(_ key: EventKey) async throws -> Int {
        try await store.record(Outcome(state: .completed, recordedAt: clock.now, device: "test"), for: key)
    }
}

/// A gate tasks wait at until it opens, and which stays open.
private final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }
}

/// How many are inside at once.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    func decrement() { count.withLock { $0 -= 1 } }
}
