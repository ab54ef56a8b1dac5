import Foundation
import RelayProtocol
import Testing

/// Issue 55: a household device away from home follows the primary through a relay, a real
/// `strelaysrv` on loopback (no pool), with the primary and the device as separate processes.
@Suite struct RelayScenarioTests {
    let scratch = Scratch()

    var scene: RelayScene { RelayScene(scratch: scratch) }
    var today: String { scene.today }

    func primary(_ caresync: CareSyncCommand, relays: [RelayServer], clock: String? = nil) async throws -> PrimaryProcess {
        try await scene.primary(caresync, relays: relays.map(\.address), clock: clock)
    }

    @Test func aHouseholdDeviceThatCannotReachThePrimaryFollowsItThroughItsRelay() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let caresync = try await exampleStore(in: scratch)
        let primary = try await primary(caresync, relays: [relay])
        defer { primary.terminate() }
        let joined = try #require(primary.process.output.compactMap(WatchProcess.object).first { $0["event"] as? String == "relay" })
        let listening = try #require(primary.process.output.compactMap(WatchProcess.object).first { $0["event"] as? String == "listening" })
        // What the relay knows the primary by is not its CareSync fingerprint.
        let relayID = try RelayDeviceID(try #require(joined["as"] as? String))
        #expect(relayID.description != listening["fingerprint"] as? String)

        // Paired at home, where the primary's address is known, then away: no address, no
        // mDNS, only what pairing taught it.
        let device = try await scene.away(caresync, primary: primary)
        defer { device.process.terminate() }
        let context = try #require(try await device.waitFor("context").first)
        #expect((context["events"] as? [[String: Any]])?.isEmpty == false, "\(context)")
        device.process.send("history")
        try await device.waitFor("history") { $0["kind"] as? String == "devicePaired" }
    }

    /// A standby household device away, once it holds a first context and standby copy.
    func awayHousehold(_ caresync: CareSyncCommand, primary: PrimaryProcess) async throws -> WatchProcess {
        let household = try await scene.away(caresync, primary: primary, pairOptions: ["--standby"])
        try await household.waitFor("context")
        try await household.waitFor("standby")
        return household
    }

    /// The paired household device's fingerprint.
    func householdID(_ caresync: CareSyncCommand) async throws -> String {
        let devices = try await caresync.run("devices", "--json").lines.compactMap(WatchProcess.object)
        return try #require(devices.first { $0["role"] as? String == "household" }?["id"] as? String)
    }

    @Test func awayItHearsTheMissedDoseAndTheAllClearGetsTheReportKeepsTheStandbyAndIsCutOffWhenRevoked() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await primary(caresync, relays: [relay], clock: "08:30:00")
        defer { primary.terminate() }
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.process.terminate() }
        let household = try await awayHousehold(caresync, primary: primary)
        defer { household.process.terminate() }

        // Missed at 09:00 on the primary's clock: the alert reaches the device through the
        // relay within the grace period plus 2 s.
        let deadline = try #require(utcInstant("\(today)T09:00:00.000Z"))
        try await primary.advanceClock(to: deadline.addingTimeInterval(0.2))
        let missed = try await household.waitFor("alert") { $0["kind"] as? String == "missed" }[0]
        #expect(missed["activity"] as? String == "dose" && missed["day"] as? String == today)
        let raisedAt = try #require(utcInstant(missed["raisedAt"] as? String ?? ""))
        #expect((0...2).contains(raisedAt.timeIntervalSince(deadline)), "raised at \(raisedAt)")

        // Taken late on the watch at home: the all clear, and the standby copy takes the step.
        try await watch.waitFor("context")
        watch.send("complete dose 0")
        let reply = try await watch.waitFor("reply") { $0["status"] as? String == "accepted" }[0]
        let clear = try await household.waitFor("alert") { $0["kind"] as? String == "cleared" }[0]
        #expect(clear["outcome"] as? String == "completed")
        let revision = try #require(reply["revision"] as? Int, "\(reply)")
        try await household.waitFor("standby") { ($0["revision"] as? Int ?? 0) >= revision }

        // A report shared with it arrives whole.
        let id = try await householdID(caresync)
        let shared = try await caresync.run("share", "report", "--week", today, "--household", id, "--format", "html")
        #expect(shared.status == 0, "\(shared.stderr)")
        let report = try #require(try await household.waitFor("report").first)
        let saved = try String(contentsOfFile: try #require(report["path"] as? String), encoding: .utf8)
        #expect(saved.contains("Margaret Hale") && saved.contains("Levothyroxine"))

        // Revoked while relayed: cut off at once, as a direct connection is.
        #expect(try await caresync.run("devices", "revoke", id).status == 0)
        let refusal = try await household.waitFor("error") { $0["code"] as? String == "NOT_PAIRED" }[0]
        #expect((refusal["message"] as? String)?.contains("revoked") == true, "\(refusal)")
    }

    @Test func withNoWayLeftItSaysSinceWhenRaisesItsOwnNoticeForTheDoseNobodyCanConfirmAndClearsOnReturn() async throws {
        let keys = scratch.path("relay-keys")
        var relay = try await RelayServer.start(keys: keys)
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await primary(caresync, relays: [relay], clock: "08:30:00")
        defer { primary.terminate() }
        let household = try await scene.away(caresync, primary: primary, extra: ["--clock-start", "\(today)T08:30:00Z"])
        defer { household.process.terminate() }
        try await household.waitFor("context")

        // The relay gone, no way is left: said once, with when the primary was last heard.
        relay.process.terminate(signal: SIGKILL)
        let unreachable = try await household.waitFor("away") { $0["status"] as? String == "unreachable" }[0]
        let since = try #require(utcInstant(unreachable["since"] as? String ?? ""))
        let start = try #require(utcInstant("\(today)T08:30:00.000Z"))
        #expect((0...60).contains(since.timeIntervalSince(start)), "unreachable since \(since)")
        // Its 08:00 dose passes its grace period on the device's clock: nobody can confirm it.
        household.send("advance 1800")
        let notice = try await household.waitFor("away") { $0["status"] as? String == "cannotConfirm" }[0]
        #expect(notice["activity"] as? String == "dose" && notice["occurrence"] as? Int == 0 && notice["time"] as? String == "08:00")
        #expect(notice["missedAt"] as? String == "\(today)T09:00:00.000Z", "\(notice)")
        // Meanwhile the primary counts it missed; its alert waits for the device.
        try await primary.advanceClock(to: try #require(utcInstant("\(today)T09:00:00.200Z")))

        // The relay back on its port: the device hears the primary, says so, and gets the alert.
        relay = try await RelayServer.start(keys: keys, port: relay.port)
        let reachable = try await household.waitFor("away") { $0["status"] as? String == "reachable" }[0]
        #expect(reachable["since"] as? String == unreachable["since"] as? String)
        try await household.waitFor("connected", count: 2)
        try await household.waitFor("alert") { $0["kind"] as? String == "missed" && $0["activity"] as? String == "dose" }
        #expect(household.messages("away").count == 3, "each notice once: \(household.messages("away"))")
    }

    @Test func aRelayPresentingAnotherIdentityIsRefusedWithThatReason() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let impostor = try await RelayServer.start(keys: scratch.path("impostor-keys"))
        defer { impostor.process.terminate() }
        // The address of one relay with the id of the other.
        let pinned = RelayAddress(host: relay.address.host, port: relay.port, id: impostor.address.id)
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--relay", pinned.description])
        defer { primary.terminate() }
        let failed = await primary.process.waitForLine { line in
            WatchProcess.object(line).map { $0["event"] as? String == "relay" && $0["status"] as? String == "failed" } ?? false
        }
        let reason = try #require(failed.flatMap(WatchProcess.object)?["reason"] as? String, "\(primary.process.output)")
        #expect(reason.contains("relay identity changed"), "\(reason)")
    }
}
