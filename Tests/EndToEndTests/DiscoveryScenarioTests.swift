import Foundation
import Testing

/// Everything that uses the real Avahi daemon, in the loopback-only namespace that
/// `scripts/mdns-sandbox start` makes (scripts/test starts it). Its tests share the daemon,
/// run beside each other and the rest of the suite, except those that restart or stop it or
/// need to see every service on it (``DaemonUse``).
@Suite(.enabled(if: MDNSSandbox.isRunning, "the mDNS sandbox is not running: scripts/mdns-sandbox start"), .daemon(alone: false))
struct MDNSTests {}

extension MDNSTests {
/// Primaries advertised with DNS-SD and watches that find them without an address.
@Suite struct DiscoveryScenarioTests {
    let scratch = Scratch()

    func name(_ label: String) -> String { "\(label) \(UUID().uuidString.prefix(4))" }

    @Test(.daemon(alone: true)) func aWatchFindsTheOnlyPrimaryWithoutAnAddress() async throws {
        let caresync = try await exampleStore(in: scratch)
        // A quote and a backslash in the name: the advertised line is still one JSON object.
        let primaryName = name(#"Mum's "kitchen" tablet \"#)
        let primary = try await PrimaryProcess(store: caresync.store, name: primaryName)
        let advertised = try await #require(primary.process.waitForLine { $0.contains("\"advertised\"") })
        #expect(WatchProcess.object(advertised)?["name"] as? String == primaryName, "\(advertised)")
        // The TXT record carries the primary's identity fingerprint, as its listening line does.
        let listening = try #require(primary.process.output.first { $0.contains("\"listening\"") })
        let fingerprint = try #require(
            (try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: Any])?["fingerprint"] as? String)
        #expect(fingerprint.count == 64)
        let browse = try await CareSyncCommand.run(executable: URL(fileURLWithPath: "/usr/bin/avahi-browse"), ["-rpt", "_caresync._tcp"])
        #expect(browse.stdout.contains("\"fp=\(fingerprint)\""))
        // Pairing finds the only primary; the watch then follows the one it paired with.
        let code = try await #require(WatchProcess.object(try caresync.run("pair", "--role", "watch", "--json").stdout)?["code"] as? String)
        let pairing = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", code, "--state-dir", scratch.path("watch"), "--json"])
        #expect(pairing.status == 0, "\(pairing.stdout)")
        let said = try #require(pairing.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "discovery" })
        #expect((said["message"] as? String)?.contains("found the only primary on the network: \(primaryName)") == true)
        let paired = try #require(pairing.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "paired" })
        #expect(paired["primary"] as? String == fingerprint)
        let watch = try await WatchProcess(discovering: nil, stateDir: scratch.path("watch"), store: caresync.store)
        let connected = try await watch.waitFor("connected").last!
        #expect(connected["name"] as? String == "CareSync primary" || connected["name"] as? String == primaryName)
        try await watch.waitFor("context")
    }

    @Test func withTwoPrimariesTheWatchListsThemOrTakesTheOneNamed() async throws {
        let first = try await exampleStore(in: scratch)
        let secondScratch = Scratch()
        let second = try await exampleStore(in: secondScratch)
        let names = (name("Upstairs"), name("Downstairs"))
        let one = try await PrimaryProcess(store: first.store, name: names.0)
        let two = try await PrimaryProcess(store: second.store, name: names.1)
        for primary in [one, two] { #expect(await primary.process.waitForLine { $0.contains("\"advertised\"") } != nil) }

        // Pairing without naming one: the watch lists both and pairs with neither.
        let code = try await #require(WatchProcess.object(try second.run("pair", "--role", "watch", "--json").stdout)?["code"] as? String)
        let undecided = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", code, "--state-dir", scratch.path("undecided"), "--json", "--log-level", "debug"])
        #expect(undecided.status == 1)
        let refusal = try #require(undecided.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "error" })
        let reason = try #require(refusal["message"] as? String)
        #expect(reason.contains("several primaries") && reason.contains(names.0) && reason.contains(names.1), "\(reason)\n\(undecided.stderr)")

        let decided = try await WatchProcess(discovering: names.1, stateDir: scratch.path("decided"), store: second.store)
        try await decided.waitFor("connected")
        let context = try await decided.waitFor("context").last!
        #expect(context["revision"] as? Int != nil)
        #expect(decided.messages("discovery").isEmpty)
    }

    /// The primary comes back on another port: the running watch finds it by itself.
    @Test func aRunningWatchFollowsItsPrimaryToANewPort() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primaryName = name("Moving tablet")
        let primary = try await PrimaryProcess(store: caresync.store, name: primaryName)
        let watch = try await WatchProcess(discovering: primaryName, stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("connected")
        let oldPort = primary.port
        await primary.stop()
        try await watch.waitFor("disconnected")
        let moved = try await PrimaryProcess(store: caresync.store, name: primaryName)
        defer { moved.terminate(signal: SIGTERM) }
        #expect(moved.port != oldPort)
        try await watch.waitFor("connected", count: 2)
        watch.send("complete golden-apple 2")
        #expect(try await watch.waitFor("reply").last?["status"] as? String == "accepted")
    }

    /// The daemon restarts: the primary advertises again, and a companion finds it.
    @Test(.daemon(alone: true)) func aRestartedDaemonGetsTheAdvertisementBack() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primaryName = name("Steadfast")
        let primary = try await PrimaryProcess(store: caresync.store, name: primaryName)
        #expect(await primary.process.waitForLine { $0.contains("\"advertised\"") } != nil)
        let watch = try await WatchProcess(discovering: primaryName, stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("connected")

        let restart = try await CareSyncCommand.run(executable: MDNSSandbox.script, ["restart"])
        #expect(restart.status == 0, "\(restart.stderr)")
        let advertised = await primary.process.waitForLines(count: 2) { $0.contains("\"advertised\"") }
        #expect(advertised?.count == 2)
        // The connection never depended on the daemon; a new companion finds the primary again.
        #expect(watch.messages("disconnected").isEmpty)
        try await pairSimulator("widget-sim", role: "widget", store: caresync.store, locate: ["--primary", primaryName], stateDir: scratch.path("widget"))
        let widget = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
            ["--primary", primaryName, "--state-dir", scratch.path("widget"), "--json"])
        #expect(widget.status == 0, "\(widget.stdout)")
        // And a running watch, when its primary moves, finds it through the new daemon.
        let oldPort = primary.port
        await primary.stop()
        let moved = try await PrimaryProcess(store: caresync.store, name: primaryName)
        defer { moved.terminate(signal: SIGTERM) }
        #expect(moved.port != oldPort)
        try await watch.waitFor("connected", count: 2)
    }
}
}
