import Foundation
import Testing

/// Issue 42's scenario with real processes: a primary with two watches and a standby
/// household device; completions flow; the primary is SIGKILLed and its files deleted; a new
/// primary is restored from the standby's export, and separately from the last scheduled
/// backup; the watches reconnect without pairing; every completion acknowledged more than
/// the measured lag before the loss is in the restored store, none twice; revocations and
/// pairing codes come back. The figures are printed.
struct StandbyRestoreTests {
    let scratch = Scratch()
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    /// A completion a watch had acknowledged: its message id and revision, and when the test
    /// read the reply (no earlier than the primary sent it).
    struct Acknowledged {
        var messageID: String
        var revision: Int
        var at: Date
    }

    /// Sends `command` (about `activity`) to `watch` and waits for its reply line: the
    /// acknowledgement, or its queueing while no primary answers.
    func answer(_ watch: WatchProcess, _ command: String, about activity: String) async throws -> [String: Any] {
        let about: @Sendable ([String: Any]) -> Bool = { $0["activity"] as? String == activity }
        let before = watch.messages("reply").filter(about).count
        watch.send(command)
        return try await watch.waitFor("reply", count: before + 1, where: about).last!
    }

    /// Messages of outcome changes in the store's change log, by message id (a count each).
    func recorded(_ caresync: CareSyncCommand) async throws -> [String: Int] {
        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        return history.compactMap { $0["messageID"] as? String }.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded(.up)))]
    }

    @Test func aLostPrimaryComesBackFromTheStandbyCopyAndFromTheLastScheduledBackup() async throws {
        let caresync = try await exampleStore(in: scratch)
        let passphrase = scratch.path("passphrase")
        try "the household's backup passphrase\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
        let backups = scratch.path("backups")
        let primary = try await PrimaryProcess(
            store: caresync.store, clockStart: "\(today)T08:00:30Z",
            extra: ["--backup-dir", backups, "--backup-every", "1h", "--backup-passphrase-file", passphrase])
        defer { primary.terminate() }
        let watches = [
            try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch-a"), store: caresync.store),
            try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch-b"), store: caresync.store),
        ]
        defer { for watch in watches { watch.terminate() } }
        let householdDir = scratch.path("household")
        let household = try await WatchProcess(
            endpoint: primary.endpoint, stateDir: householdDir, store: caresync.store, role: "household", simulator: "household-sim",
            pairOptions: ["--standby"])
        defer { household.terminate() }
        for watch in watches { try await watch.waitFor("context") }
        try await household.waitFor("standby")

        // A revoked widget and a pairing code not yet used: both must come back.
        try await pairSimulator("widget-sim", role: "widget", store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: scratch.path("widget"))
        let widget = try #require(try await caresync.run("devices", "--json").lines.compactMap(WatchProcess.object).first { $0["role"] as? String == "widget" })
        #expect(try await caresync.run("devices", "revoke", try #require(widget["id"] as? String)).status == 0)
        let open = try await caresync.run("pair", "--role", "watch", "--expires", "24h", "--json")
        let code = try #require(WatchProcess.object(open.stdout)?["code"] as? String)
        let devices = try await BackupRestoreTests.pairings(caresync)
        #expect(devices.count == 4 && devices.contains { $0.contains(" household ") && $0.hasSuffix(" 0 1 -") }, "a standby household device that does not record: \(devices)")

        // Completions flow from both watches, each acknowledged before the next; an hour on the
        // primary's clock makes a scheduled backup midway. At the 40th round, once the copy
        // has every completion acknowledged so far, each watch sends one of the other's
        // activity and the primary is killed with those in flight; the rest of the rounds
        // queue.
        var acknowledged: [Acknowledged] = []
        var backup: (file: String, revision: Int)?
        var lostAt: Date?
        let commands = [("golden-apple", 3), ("no-brains", 1)]
        for round in 0..<50 {
            if round == 40 {
                let newest = try #require(acknowledged.map(\.revision).max())
                try await household.waitFor("standby") { ($0["revision"] as? Int ?? 0) >= newest }
                for (index, watch) in watches.enumerated() { watch.send("complete \(commands[1 - index].0) 0") }
                lostAt = Date()
                await primary.stop(signal: SIGKILL)
                for suffix in ["", "-wal", "-shm", ".identity"] { try? FileManager.default.removeItem(atPath: caresync.store + suffix) }
                for watch in watches { try await watch.waitFor("disconnected") }
                continue
            }
            for (index, watch) in watches.enumerated() {
                let (activity, occurrences) = commands[index]
                let reply = try await answer(watch, "\(round % 2 == 0 ? "complete" : "skip") \(activity) \(round % occurrences)", about: activity)
                if reply["status"] as? String == "accepted" {
                    acknowledged.append(Acknowledged(
                        messageID: try #require(reply["messageID"] as? String), revision: try #require(reply["revision"] as? Int), at: Date()))
                } else {
                    #expect(lostAt != nil && reply["status"] as? String == "queued", "\(reply)")
                }
            }
            if round == 15 {
                try await primary.advanceClock(by: 3600)
                // The second backup: the first was made at start, before any device paired.
                let made = try #require(await primary.process.waitForLines(count: 2) { $0.contains("\"event\":\"backup\"") })
                let event = try #require(WatchProcess.object(made[1]))
                backup = (try #require(event["file"] as? String), try #require(event["revision"] as? Int))
            }
        }
        let loss = try #require(lostAt)
        let lags = household.messages("standby").compactMap { $0["lagMs"] as? Int }.map(Double.init)
        let lag = try #require(lags.max(), "steps with a lag: \(household.messages("standby").count)")

        // The standby copy, exported and restored as a new device's store.
        let exported = scratch.path("standby.csb")
        let export = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("household-sim"),
            ["standby", "export", "--state-dir", householdDir, "--out", exported, "--passphrase-file", passphrase])
        #expect(export.status == 0 && export.stdout.contains("with the primary's identity"), "\(export.stdout)\(export.stderr)")
        let restored = CareSyncCommand(store: scratch.path("new-device/store.sqlite"))
        let restore = try await restored.run("restore", exported, "--passphrase-file", passphrase)
        #expect(restore.status == 0, "\(restore.stderr)")
        let recovered = try await recorded(restored)
        let settled = acknowledged.filter { $0.at < loss.addingTimeInterval(-lag / 1000) }
        #expect(!settled.isEmpty && settled.allSatisfy { recovered[$0.messageID] == 1 },
                "missing: \(settled.filter { recovered[$0.messageID] != 1 }.map(\.messageID))")
        #expect(recovered.values.allSatisfy { $0 == 1 }, "none twice")
        let copyRevision = try #require(export.stdout.firstMatch(of: /revision (\d+)/).flatMap { Int($0.1) }, "\(export.stdout)")
        #expect(acknowledged.allSatisfy { ($0.revision <= copyRevision) == (recovered[$0.messageID] == 1) },
                "the copy is the store at revision \(copyRevision): what was acknowledged up to it, nothing after")
        #expect(try await BackupRestoreTests.pairings(restored) == devices, "the same devices, the widget revoked")

        // The new primary is the same one to the watches: what they queued drains into it.
        let newPrimary = try await PrimaryProcess(store: restored.store, port: primary.port, clockStart: "\(today)T09:30:00Z")
        defer { newPrimary.terminate() }
        for watch in watches {
            try await watch.waitFor("reply", count: 50) { $0["status"] as? String == "accepted" }
            #expect(!watch.process.output.contains { $0.contains("The primary changed") })
        }
        let drained = try await recorded(restored)
        #expect(drained.values.allSatisfy { $0 == 1 }, "what was in flight at the loss is recorded once")
        // The pairing code made before the loss pairs a third watch with the restored primary.
        let third = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["pair", code, "--connect", newPrimary.endpoint, "--state-dir", scratch.path("watch-c"), "--json"])
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        await newPrimary.stop()

        // Separately, the last scheduled backup: exactly what was acknowledged up to its revision.
        let (file, revision) = try #require(backup)
        let fromBackup = CareSyncCommand(store: scratch.path("from-backup/store.sqlite"))
        #expect(try await fromBackup.run("restore", file, "--passphrase-file", passphrase).status == 0)
        let inBackup = try await recorded(fromBackup)
        #expect(acknowledged.allSatisfy { ($0.revision <= revision) == (inBackup[$0.messageID] == 1) })
        #expect(try await BackupRestoreTests.pairings(fromBackup) == devices)
        let connections = watches[0].messages("connected").count
        let backupPrimary = try await PrimaryProcess(store: fromBackup.store, port: primary.port, clockStart: "\(today)T10:00:00Z")
        defer { backupPrimary.terminate() }
        try await watches[0].waitFor("connected", count: connections + 1)
        let reply = try await answer(watches[0], "complete golden-apple 2", about: "golden-apple")
        #expect(reply["status"] as? String == "accepted", "the watch reconnects to it without pairing: \(reply)")

        let recoveredAcknowledged = acknowledged.filter { recovered[$0.messageID] == 1 }.count
        print("""
            standby restore: \(acknowledged.count) completions acknowledged before the loss, \(recoveredAcknowledged) recovered \
            (\(settled.count) acknowledged more than the largest lag before it, all recovered), none twice; \
            standby lag over \(lags.count) steps: p50 \(Int(percentile(lags, 0.5))) ms, p99 \(Int(percentile(lags, 0.99))) ms, \
            max \(Int(lag)) ms; the scheduled backup at revision \(revision) held \(acknowledged.count { $0.revision <= revision })
            """)
    }
}
