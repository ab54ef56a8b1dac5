import Foundation
import Testing

/// Pairing, roles and revocation through the command line and the simulators.
@Suite(.serialized) struct PairingScenarioTests {
    let scratch = Scratch()

    func devices(_ caresync: CareSyncCommand) async throws -> [[String: Any]] {
        try await caresync.run("devices", "--json").lines.compactMap(WatchProcess.object)
    }

    @Test func pairCodesAreValidatedAndListedDevicesShowRoleAndLastSeen() async throws {
        let caresync = try await exampleStore(in: scratch)
        #expect(try await caresync.run("pair", "--role", "toaster").stderr.contains("--role must be watch, widget, household or browser"))
        #expect(try await caresync.run("pair", "--role", "watch", "--household").stderr.contains("--household is for --role browser"))
        #expect(try await caresync.run("pair", "--role", "browser", "--may-record").stderr.contains("a browser records unless --household"))
        #expect(try await caresync.run("pair", "--role", "watch", "--expires", "3d").stderr.contains("--expires must be 10s to 24h"))
        #expect(try await caresync.run("pair", "--role", "watch", "--may-record").stderr.contains("--may-record is for household devices"))
        #expect(try await caresync.run("devices").stdout.contains("No paired devices"))

        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        let identity = try await #require(try watch.waitFor("identity").last?["fingerprint"] as? String)
        try await watch.waitFor("connected")
        let listed = try await #require(try devices(caresync).first)
        #expect(listed["id"] as? String == identity && listed["role"] as? String == "watch")
        #expect(listed["lastSeen"] as? String != nil && listed["revokedAt"] == nil)
        let text = try await caresync.run("devices").stdout
        #expect(text.contains(String(identity.uppercased().prefix(4))) && text.contains("watch  \"Watch\"  last seen"))
    }

    @Test func aRevokedWatchIsCutOffAtOnceAndRefusedFromThenOn() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        let identity = try await #require(try watch.waitFor("identity").last?["fingerprint"] as? String)
        try await watch.waitFor("context")
        // The fingerprint as people read it, shortened to a unique beginning.
        let revoke = try await caresync.run("devices", "revoke", String(identity.uppercased().prefix(4)) + "-" + String(identity.uppercased().dropFirst(4).prefix(4)))
        #expect(revoke.status == 0, "\(revoke.stderr)")
        let refusal = try await watch.waitFor("error") { $0["code"] as? String == "NOT_PAIRED" }.last!
        #expect((refusal["message"] as? String)?.contains("revoked") == true)
        #expect(try await devices(caresync).first?["revokedAt"] as? String != nil)
        // A restarted watch with the same identity is refused, and so is pairing it again.
        #expect(await watch.quit())
        let again = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["--connect", primary.endpoint, "--state-dir", scratch.path("watch"), "--json"])
        defer { again.terminate(signal: SIGTERM) }
        #expect(await again.waitForLine { $0.contains("NOT_PAIRED") && $0.contains("revoked") } != nil)
        // Refused for good, it ends quietly: no failure of its own services.
        #expect(await again.waitForExit())
        #expect(!again.output.contains { $0.contains("services failed") }, "\(again.output)")
        let code = try await #require(WatchProcess.object(try caresync.run("pair", "--role", "watch", "--json").stdout)?["code"] as? String)
        let repair = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", code, "--connect", primary.endpoint, "--state-dir", scratch.path("watch"), "--json"])
        #expect(repair.status == 1 && repair.stdout.contains("revoked"))
        #expect(try await caresync.run("devices", "revoke", "ffff").stderr.contains("no paired device"))
    }

    /// A refused pairing's JSON line names the code once, in `code`, and the primary's
    /// message as it is in `message`.
    @Test func aPairingErrorNamesItsCodeOnce() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let code = try await #require(WatchProcess.object(try caresync.run("pair", "--role", "watch", "--json").stdout)?["code"] as? String)
        let wrong = code == "ZZZZ-ZZZZ" ? "YYYY-YYYY" : "ZZZZ-ZZZZ"
        let pairing = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", wrong, "--connect", primary.endpoint, "--state-dir", scratch.path("watch"), "--json"])
        #expect(pairing.status == 1)
        let error = try #require(pairing.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "error" })
        #expect(error["code"] as? String == "PAIRING_FAILED")
        #expect(error["message"] as? String == "wrong pairing code (4 attempts left)")
    }

    @Test func aReadOnlyHouseholdDeviceReadsTheHistoryButCannotRecord() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        #expect(try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "3").status == 0)
        let household = try await WatchProcess(
            endpoint: primary.endpoint, stateDir: scratch.path("household"), store: caresync.store,
            role: "household", simulator: "household-sim")
        try await household.waitFor("context")
        let before = try await caresync.run("history", "--json").lines.count
        household.send("complete golden-apple 0")
        let reply = try await household.waitFor("reply").last!
        #expect(reply["status"] as? String == "rejected")
        #expect((reply["detail"] as? String)?.contains("not granted recording") == true)
        #expect(try await caresync.run("history", "--json").lines.count == before)

        household.send("history")
        let entries = try await household.waitFor("history", count: before)
        #expect(entries.contains { $0["kind"] as? String == "outcomeRecorded" && $0["activity"] as? String == "pain" })
        #expect(entries.contains { $0["kind"] as? String == "devicePaired" })
    }
}
