import Foundation
import Testing

/// The log of the programs: standard error, one line per record, at `--log-level` and above,
/// beside (never inside) the product output on standard output.
struct LoggingTests {
    let scratch = Scratch()

    /// At `info` the primary logs each companion's connection and disconnection with the
    /// peer's fingerprint; at the default level (notice) a watch logs neither.
    @Test func thePrimaryLogsCompanionsComingAndGoingWithTheirFingerprint() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--log-level", "info"])
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        let fingerprint = try await #require(try watch.waitFor("identity").last?["fingerprint"] as? String)
        try await watch.waitFor("context")
        let connected = try await #require(primary.process.waitForLine { $0.contains(" info caresync.primary: companion connected ") })
        #expect(connected.contains(" peer=\(fingerprint.prefix(16))") && connected.contains(" role=watch"), "\(connected)")
        #expect(await watch.quit())
        let gone = try await #require(primary.process.waitForLine { $0.contains(" info caresync.primary: companion disconnected ") })
        #expect(gone.contains(" peer=\(fingerprint.prefix(16))"), "\(gone)")
        // Log lines are not product output: every other line of both is one JSON object.
        for line in primary.process.output + watch.process.output where !line.contains(" caresync.") {
            #expect(WatchProcess.object(line) != nil, "not JSON: \(line)")
        }
        #expect(!watch.process.output.contains { $0.contains(" info caresync.watch:") })
    }

    /// `--log-level debug` on a watch shows what it does on the wire, with the message id.
    @Test func aWatchAtDebugLogsWhyItsConnectionsEnd() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--log-level", "debug"])
        let watch = try await WatchProcess(
            endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store, extra: ["--log-level", "debug"])
        try await watch.waitFor("context")
        watch.send("complete golden-apple 1")
        let reply = try await watch.waitFor("reply").last!
        let messageID = try #require(reply["messageID"] as? String)
        let judged = try await #require(primary.process.waitForLine { $0.contains(" debug caresync.primary: completion judged ") })
        #expect(judged.contains("messageID=\(messageID)") && judged.contains("status=accepted"), "\(judged)")
        await primary.stop()
        let ended = try await #require(watch.process.waitForLine { $0.contains(" info caresync.watch: connection ended ") })
        #expect(ended.contains("goodbye"), "\(ended)")
        #expect(await watch.quit())
    }
}
