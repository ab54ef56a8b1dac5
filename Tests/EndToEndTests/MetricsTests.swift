import Foundation
import Testing
import TestSupport

/// `--metrics-port`: the primary's and a watch's metrics in Prometheus's text format.
struct MetricsTests {
    let scratch = Scratch()

    /// `GET /metrics` on `port`, on a connection the request closes: the status line and the body.
    func scrape(_ port: Int, path: String = "/metrics") async throws -> (status: String, body: String) {
        let socket = try RawSocket(port: port)
        try socket.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let response = await String(decoding: socket.receiveAll().bytes, as: UTF8.self)
        let parts = response.components(separatedBy: "\r\n\r\n")
        return (parts[0].components(separatedBy: "\r\n")[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// The value of the sample `name` (with its labels as written), or nil.
    func sample(_ body: String, _ name: String) -> Double? {
        body.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    @Test func thePrimaryAndAWatchCountConnectionsCompletionsAndFanOut() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--metrics-port", "0"])
        let announced = try await #require(primary.process.waitForLine { $0.contains("\"event\":\"metrics\"") })
        let primaryPort = try #require(WatchProcess.object(announced)?["port"] as? Int)
        let watch = try await WatchProcess(
            endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store, extra: ["--metrics-port", "0"])
        let watchPort = try await #require(try watch.waitFor("metrics").last?["port"] as? Int)
        try await watch.waitFor("context")
        watch.send("complete golden-apple 1")
        try await watch.waitFor("reply")
        // The completion's own context comes back to the watch: a fan-out after a commit.
        try await watch.waitForState("golden-apple", 1, "completed")
        // The CLI records one more from another process, which reaches the watch too.
        #expect(try await caresync.run("complete", "golden-apple", "--occurrence", "0").status == 0)
        try await watch.waitForState("golden-apple", 0, "completed")

        let (status, body) = try await scrape(primaryPort)
        #expect(status == "HTTP/1.1 200 OK")
        #expect(sample(body, #"caresync_primary_connections{role="watch"}"#) == 1, "\(body)")
        #expect(sample(body, #"caresync_primary_completions_total{status="accepted"}"#) == 1)
        #expect(sample(body, "caresync_primary_completion_seconds_count") == 1)
        #expect((sample(body, "caresync_primary_fanout_seconds_count") ?? 0) >= 2)
        // The first context whole, the two changes as deltas, each smaller on average.
        #expect((sample(body, #"caresync_primary_contexts_sent_total{form="snapshot"}"#) ?? 0) >= 1)
        #expect((sample(body, #"caresync_primary_contexts_sent_total{form="delta"}"#) ?? 0) >= 2)
        let meanBytes = { (form: String) -> Double in
            (sample(body, "caresync_primary_context_bytes_sum{form=\"\(form)\"}") ?? .nan)
                / (sample(body, "caresync_primary_context_bytes_count{form=\"\(form)\"}") ?? .nan)
        }
        #expect(meanBytes("delta") * 2 < meanBytes("snapshot"), "\(body)")

        let companion = try await scrape(watchPort).body
        #expect(sample(companion, "caresync_companion_connected") == 1, "\(companion)")
        #expect(sample(companion, "caresync_companion_outbox_depth") == 0)
        #expect(sample(companion, "caresync_companion_round_trip_seconds_count") == 1)
        #expect((sample(companion, #"caresync_companion_contexts_received_total{form="snapshot"}"#) ?? 0) >= 1)
        #expect((sample(companion, #"caresync_companion_contexts_received_total{form="delta"}"#) ?? 0) >= 2)

        #expect(await watch.quit())
        #expect(watch.process.terminationStatus == 0, "\(watch.process.output)")
        try await waitFor("no watch connection in the primary's metrics") { () async throws -> Sighting<Void> in
            let connections = sample(try await scrape(primaryPort).body, #"caresync_primary_connections{role="watch"}"#)
            return connections == 0 ? .found(()) : .notYet("\(connections.map { "\($0)" } ?? "no sample") watch connections")
        }
        #expect(try await scrape(primaryPort, path: "/").status == "HTTP/1.1 404 Not Found")
        // SIGTERM stops the endpoint with the rest, cleanly (it used to fail the command
        // with "caresync: CancellationError()" and exit 1).
        await primary.stop()
        #expect(primary.process.terminationStatus == 0, "\(primary.process.output)")
        #expect(primary.process.output.contains { $0.contains("\"event\":\"stopped\"") })
    }
}
