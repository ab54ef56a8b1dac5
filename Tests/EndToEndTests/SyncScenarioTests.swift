import CarePlanStore
import Foundation
import Testing

/// The sync protocol end to end: a real primary, watch and widget, each its own process.
@Suite(.serialized) struct SyncScenarioTests {
    let scratch = Scratch()

    func today(_ caresync: CareSyncCommand) async throws -> CareCard {
        try await caresync.json(CareCard.self, "today", "--json")
    }

    func widget(_ endpoint: String, store: String, _ arguments: String...) async throws -> CareSyncCommand.Result {
        try await pairSimulator("widget-sim", role: "widget", store: store, locate: ["--connect", endpoint], stateDir: scratch.path("widget"))
        return try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
            ["--connect", endpoint, "--state-dir", scratch.path("widget"), "--json"] + arguments)
    }

    /// (1) A completion on the watch reaches the primary's store and the widget's next refresh.
    @Test func aWatchCompletionReachesTheStoreAndTheWidget() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        // Each node made its identity on first start; the primary's is the certificate beside its store.
        let identity = try await watch.waitFor("identity").last?["fingerprint"] as? String
        #expect(identity?.count == 64)
        let listening = try #require(primary.process.output.first { $0.contains("\"listening\"") })
        let fingerprint = (try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: Any])?["fingerprint"] as? String
        #expect(fingerprint != nil && fingerprint != identity)
        #expect(FileManager.default.fileExists(atPath: caresync.store + ".identity/identity.pem"))
        try await watch.waitForState("golden-apple", 1, "initial")
        // Keys and health data are the owner's alone, on both nodes.
        let watchState = scratch.path("watch")
        for (path, mode) in [(caresync.store, 0o600), (caresync.store + "-wal", 0o600), (caresync.store + ".identity", 0o700),
                             (caresync.store + ".identity/identity.pem", 0o600), (watchState, 0o700),
                             (watchState + "/identity.pem", 0o600), (watchState + "/companion.sqlite", 0o600),
                             (watchState + "/companion.sqlite-wal", 0o600)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == mode, "\(path)")
        }
        watch.send("complete golden-apple 1")
        let reply = try await watch.waitFor("reply").last!
        #expect(reply["status"] as? String == "accepted")
        let revision = try #require(reply["revision"] as? Int)
        // The watch's own next context shows it done.
        try await watch.waitForState("golden-apple", 1, "completed")

        let card = try await today(caresync)
        #expect(card.revision >= revision)
        let stored = try #require(card.events.first { $0.activity == "golden-apple" && $0.occurrence == 1 })
        #expect(stored.state == "completed")
        #expect(stored.device == identity)

        let refresh = try await widget(primary.endpoint, store: caresync.store)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let context = try #require(refresh.lines.compactMap(WatchProcess.object).first { $0["type"] as? String == "context" })
        #expect(WatchProcess.event(in: context, "golden-apple", 1)?["state"] as? String == "completed")
        let incomplete = try #require(context["incomplete"] as? [[String: Any]])
        #expect(!incomplete.contains { $0["activity"] as? String == "golden-apple" && $0["occurrence"] as? Int == 1 })
        #expect(incomplete.contains { $0["activity"] as? String == "golden-apple" && $0["occurrence"] as? Int == 0 })
    }

    /// (2) Completions made while the primary is down wait in the watch's outbox, survive a
    /// restart of the watch, and are applied once each, in order, when the primary returns.
    @Test func offlineCompletionsAreAppliedOnceInOrder() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let port = primary.port
        var watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("context")
        await primary.stop()
        try await watch.waitFor("disconnected")
        let start = try await caresync.run("history", "--json").lines.count
        let offline = ["golden-apple 0", "pain 0 4", "golden-apple 2"]
        for command in offline { watch.send("complete \(command)") }
        try await watch.waitFor("reply", count: 3) { $0["status"] as? String == "queued" }
        #expect(await watch.quit())
        // A new watch process on the same state directory holds the same outbox.
        watch = try await WatchProcess(endpoint: "127.0.0.1:\(port)", stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("cached")

        let restarted = try await PrimaryProcess(store: caresync.store, port: port)
        defer { restarted.terminate(signal: SIGTERM) }
        let replies = try await watch.waitFor("reply", count: 3) { $0["status"] as? String == "accepted" }
        #expect(replies.map { $0["activity"] as? String } == ["golden-apple", "pain", "golden-apple"])
        let changes = try await caresync.run("history", "--json", "--after", "\(start)").lines.map {
            try JSONDecoder().decode(Change.self, from: Data($0.utf8))
        }
        #expect(changes.map(\.kind) == ["outcomeRecorded", "outcomeRecorded", "outcomeRecorded"])
        #expect(changes.map { "\($0.activity ?? "") \($0.event?.occurrence ?? -1)" } == ["golden-apple 0", "pain 0", "golden-apple 2"])
        #expect(Set(changes.compactMap(\.messageID)).count == 3)
        #expect(replies.map { $0["revision"] as? Int } == changes.map(\.revision))
    }

    /// (6) A `caresync complete` from another process reaches every connected companion, told
    /// by the store's files being written: the primary's safety read (every 5 minutes) is
    /// further off than the wait here.
    @Test func aCommandLineCompletionReachesCompanions() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watches = [
            try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store),
            try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch-2"), store: caresync.store),
        ]
        for watch in watches { try await watch.waitForState("pain", 0, "initial") }
        let result = try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "6")
        #expect(result.status == 0, "\(result.stderr)")
        for watch in watches {
            let context = try await watch.waitForState("pain", 0, "completed")
            #expect(WatchProcess.event(in: context, "pain", 0)?["values"] as? [String] == ["6"])
        }
        #expect(StoreChangeFeed.defaultSafetyNet > patience)
    }
}
