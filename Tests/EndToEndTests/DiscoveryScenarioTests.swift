import Foundation
import Testing

/// Everything that uses the real Avahi daemon, in the loopback-only namespace that
/// `scripts/mdns-sandbox start` makes (scripts/test starts it). One serialized suite, since
/// one of its tests restarts the daemon.
@Suite(.serialized, .enabled(if: MDNSSandbox.isRunning, "the mDNS sandbox is not running: scripts/mdns-sandbox start"))
struct MDNSTests {}

enum MDNSSandbox {
    static let script = CareSyncCommand.repository.appendingPathComponent("scripts/mdns-sandbox")
    static let isRunning = (try? CareSyncCommand.run(executable: script, ["status"]))?.status == 0
}

extension MDNSTests {
/// Primaries advertised with DNS-SD and watches that find them without an address.
@Suite struct DiscoveryScenarioTests {
    let scratch = Scratch()

    func name(_ label: String) -> String { "\(label) \(UUID().uuidString.prefix(4))" }

    @Test func aWatchFindsTheOnlyPrimaryWithoutAnAddress() throws {
        let caresync = try exampleStore(in: scratch)
        // A quote and a backslash in the name: the advertised line is still one JSON object.
        let primaryName = name(#"Mum's "kitchen" tablet \"#)
        let primary = try PrimaryProcess(store: caresync.store, name: primaryName)
        let advertised = try #require(primary.process.waitForLine { $0.contains("\"advertised\"") })
        #expect(WatchProcess.object(advertised)?["name"] as? String == primaryName, "\(advertised)")
        // The TXT record carries the primary's identity fingerprint, as its listening line does.
        let listening = try #require(primary.process.output.first { $0.contains("\"listening\"") })
        let fingerprint = try #require(
            (try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: Any])?["fingerprint"] as? String)
        #expect(fingerprint.count == 64)
        let browse = try CareSyncCommand.run(executable: URL(fileURLWithPath: "/usr/bin/avahi-browse"), ["-rpt", "_caresync._tcp"])
        #expect(browse.stdout.contains("\"fp=\(fingerprint)\""))
        // Pairing finds the only primary; the watch then follows the one it paired with.
        let code = try #require(WatchProcess.object(try caresync.run("pair", "--role", "watch", "--json").stdout)?["code"] as? String)
        let pairing = try CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", code, "--state-dir", scratch.path("watch"), "--json"])
        #expect(pairing.status == 0, "\(pairing.stdout)")
        let said = try #require(pairing.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "discovery" })
        #expect((said["message"] as? String)?.contains("found the only primary on the network: \(primaryName)") == true)
        let paired = try #require(pairing.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "paired" })
        #expect(paired["primary"] as? String == fingerprint)
        let watch = try WatchProcess(discovering: nil, stateDir: scratch.path("watch"), store: caresync.store)
        let connected = try watch.waitFor("connected").last!
        #expect(connected["name"] as? String == "CareSync primary" || connected["name"] as? String == primaryName)
        try watch.waitFor("context")
    }

    @Test func withTwoPrimariesTheWatchListsThemOrTakesTheOneNamed() throws {
        let first = try exampleStore(in: scratch)
        let secondScratch = Scratch()
        let second = try exampleStore(in: secondScratch)
        let names = (name("Upstairs"), name("Downstairs"))
        let one = try PrimaryProcess(store: first.store, name: names.0)
        let two = try PrimaryProcess(store: second.store, name: names.1)
        for primary in [one, two] { #expect(primary.process.waitForLine { $0.contains("\"advertised\"") } != nil) }

        // Pairing without naming one: the watch lists both and pairs with neither.
        let code = try #require(WatchProcess.object(try second.run("pair", "--role", "watch", "--json").stdout)?["code"] as? String)
        let undecided = try CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", code, "--state-dir", scratch.path("undecided"), "--json"])
        #expect(undecided.status == 1)
        let refusal = try #require(undecided.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "error" })
        let reason = try #require(refusal["message"] as? String)
        #expect(reason.contains("several primaries") && reason.contains(names.0) && reason.contains(names.1))

        let decided = try WatchProcess(discovering: names.1, stateDir: scratch.path("decided"), store: second.store)
        try decided.waitFor("connected")
        let context = try decided.waitFor("context").last!
        #expect(context["revision"] as? Int != nil)
        #expect(decided.messages("discovery").isEmpty)
    }

    /// The primary comes back on another port: the running watch finds it by itself.
    @Test func aRunningWatchFollowsItsPrimaryToANewPort() throws {
        let caresync = try exampleStore(in: scratch)
        let primaryName = name("Moving tablet")
        let primary = try PrimaryProcess(store: caresync.store, name: primaryName)
        let watch = try WatchProcess(discovering: primaryName, stateDir: scratch.path("watch"), store: caresync.store)
        try watch.waitFor("connected")
        let oldPort = primary.port
        primary.stop()
        try watch.waitFor("disconnected")
        let moved = try PrimaryProcess(store: caresync.store, name: primaryName)
        defer { moved.stop() }
        #expect(moved.port != oldPort)
        try watch.waitFor("connected", count: 2, timeout: 40)
        watch.send("complete golden-apple 2")
        #expect(try watch.waitFor("reply").last?["status"] as? String == "accepted")
    }

    /// The daemon restarts: the primary advertises again, and a companion finds it.
    @Test func aRestartedDaemonGetsTheAdvertisementBack() throws {
        let caresync = try exampleStore(in: scratch)
        let primaryName = name("Steadfast")
        let primary = try PrimaryProcess(store: caresync.store, name: primaryName)
        #expect(primary.process.waitForLine { $0.contains("\"advertised\"") } != nil)
        let watch = try WatchProcess(discovering: primaryName, stateDir: scratch.path("watch"), store: caresync.store)
        try watch.waitFor("connected")

        let restart = try CareSyncCommand.run(executable: MDNSSandbox.script, ["restart"])
        #expect(restart.status == 0, "\(restart.stderr)")
        let advertised = primary.process.waitForLines(count: 2, timeout: 30) { $0.contains("\"advertised\"") }
        #expect(advertised?.count == 2)
        // The connection never depended on the daemon; a new companion finds the primary again.
        #expect(watch.messages("disconnected").isEmpty)
        try pairSimulator("widget-sim", role: "widget", store: caresync.store, locate: ["--primary", primaryName], stateDir: scratch.path("widget"))
        let widget = try CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
            ["--primary", primaryName, "--state-dir", scratch.path("widget"), "--json"])
        #expect(widget.status == 0, "\(widget.stdout)")
        // And a running watch, when its primary moves, finds it through the new daemon.
        let oldPort = primary.port
        primary.stop()
        let moved = try PrimaryProcess(store: caresync.store, name: primaryName)
        defer { moved.stop() }
        #expect(moved.port != oldPort)
        try watch.waitFor("connected", count: 2, timeout: 40)
    }
}

    @Test func theDiscoveryBenchmarkPrintsItsFigures() throws {
        let result = try CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("caresync-bench"), ["discovery", "--runs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("primary start → companion connected") && $0.contains("worst") })
        #expect(result.lines.contains { $0.contains("primary restart → companion reconnected") })
    }

    /// Without the daemon: one clear error that says what to do, and addresses still work.
    @Test func withoutAvahiTheErrorSaysWhatToDoAndAddressesStillWork() throws {
        let stop = try CareSyncCommand.run(
            executable: URL(fileURLWithPath: "/usr/sbin/ip"), ["netns", "exec", "caresync-mdns", "avahi-daemon", "-k"])
        #expect(stop.status == 0, "\(stop.stderr)")
        defer { _ = try? CareSyncCommand.run(executable: MDNSSandbox.script, ["restart"]) }
        #expect((try CareSyncCommand.run(executable: MDNSSandbox.script, ["status"])).status != 0)

        let scratch = Scratch()
        let caresync = try exampleStore(in: scratch)
        let primary = try PrimaryProcess(store: caresync.store, name: "Lonely \(UUID().uuidString.prefix(4))")
        let complaint = try #require(primary.process.waitForLine { $0.contains(" warning caresync.primary: not advertised") })
        #expect(complaint.contains("the mDNS daemon (Avahi) is not running") && complaint.contains("--connect HOST:PORT"))
        try pairSimulator("widget-sim", role: "widget", store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: scratch.path("widget"))
        let widget = try CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
            ["--connect", primary.endpoint, "--state-dir", scratch.path("widget"), "--json"])
        #expect(widget.status == 0, "the static address must keep working: \(widget.stdout)")

        // A watch paired at the address, then looking for its primary on the network.
        try pairSimulator(store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: scratch.path("watch"))
        let lost = try RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"), ["--state-dir", scratch.path("watch"), "--json"])
        defer { lost.stop() }
        let reason = try #require(lost.waitForLine { $0.contains("\"disconnected\"") })
        #expect(reason.contains("the mDNS daemon (Avahi) is not running"))
        #expect(reason.contains("scripts/mdns-sandbox start") && reason.contains("--connect HOST:PORT"))
    }
}
