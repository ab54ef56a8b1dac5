import Foundation
import RelayProtocol
import Testing

/// Issue 55: a household device away from home follows the primary through a relay, a real
/// `strelaysrv` on loopback (no pool), with the primary and the device as separate processes.
@Suite struct RelayScenarioTests {
    let scratch = Scratch()

    /// A primary waiting on `relays` (its `--relay` options), once it says it joined each.
    func primary(_ caresync: CareSyncCommand, relays: [RelayServer]) async throws -> PrimaryProcess {
        let primary = try await PrimaryProcess(store: caresync.store, extra: relays.flatMap { ["--relay", $0.address.description] })
        guard await primary.process.waitForLines(count: relays.count, where: { line in
            WatchProcess.object(line).map { $0["event"] as? String == "relay" && $0["status"] as? String == "joined" } ?? false
        }) != nil else {
            primary.terminate()
            throw ProcessFailed(description: "the primary joined no relay: \(primary.process.output)")
        }
        return primary
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

        // Paired at home, where the primary's address is known...
        let stateDir = scratch.path("household")
        try await pairSimulator("household-sim", role: "household", store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: stateDir)
        // ...then away: no address, no mDNS, only what pairing taught it.
        let household = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("household-sim"), ["--state-dir", stateDir, "--json", "--relay-only"])
        defer { household.terminate() }
        let device = WatchProcess(process: household)
        let connected = try await device.waitFor("connected")
        #expect(connected.first?["way"] as? String == "relay 127.0.0.1")
        let context = try #require(try await device.waitFor("context").first)
        #expect((context["events"] as? [[String: Any]])?.isEmpty == false, "\(context)")
        household.send("history")
        try await device.waitFor("history") { $0["kind"] as? String == "devicePaired" }
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
