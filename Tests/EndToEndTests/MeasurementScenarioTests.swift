import Foundation
import Testing

/// A watch's measurements reach the primary's store (protocol section 21): typed at the
/// simulator's prompt, refused with the primary's reason, and from its sensor.
@Suite(.serialized) struct MeasurementScenarioTests {
    let scratch = Scratch()

    func listed(_ caresync: CareSyncCommand, _ arguments: String...) async throws -> [[String: Any]] {
        let json = try await caresync.run(["measurements", "--json"] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json.stderr)")
    }

    @Test func measurementsTypedAtTheWatchAreStoredWithTheirSourceAndBadOnesRefused() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.terminate() }
        try await watch.waitFor("context")
        for command in [
            "measure heart-rate 72 --at 2026-11-18T08:00:00Z",
            "measure steps 1200 --from 2026-11-18T10:00:00Z --to 2026-11-18T11:00:00Z",
            "measure blood-pressure 120/80 --at 2026-11-18T08:05:00Z --source cuff",
            "measure glucose 5.6 mmol/L --at 2026-11-18T12:00:00Z",
            "measure glucose 101 mg/dl --at 2026-11-18T12:30:00Z",
            "measure heart-rate 400 --at 2026-11-18T09:00:00Z",
            "measure steps 10 mmHg --at 2026-11-18T09:00:00Z",
        ] {
            watch.send(command)
        }
        watch.send("measure pulse 60")
        let usage = try await watch.waitFor("error") { $0["code"] as? String == "USAGE" }
        #expect((usage[0]["message"] as? String)?.hasPrefix("name a measurement and its value") == true)
        // Answered in as many batches as the sender found waiting each time.
        try await waitFor("all seven samples answered", seen: { "\(watch.process.output.suffix(5))" }) {
            watch.messages("measurements").map { ($0["stored"] as? Int ?? 0) + ($0["refused"] as? [Any] ?? []).count }.reduce(0, +) == 7
        }
        let receipts = watch.messages("measurements")
        #expect(receipts.map { $0["stored"] as? Int ?? 0 }.reduce(0, +) == 5)
        let refused = receipts.flatMap { $0["refused"] as? [[String: Any]] ?? [] }.compactMap { $0["reason"] as? String }
        #expect(refused.sorted() == [
            "heart-rate 400 /min is not plausible: from 20 to 300",
            "steps does not come in \"mmHg\": {steps}",
        ], "\(refused)")

        let stored = try await listed(caresync, "--from", "2026-11-18", "--to", "2026-11-18")
        #expect(stored.compactMap { $0["type"] as? String } == ["heart-rate", "blood-pressure", "steps", "glucose", "glucose"])
        let identity = try #require(watch.messages("identity").first?["fingerprint"] as? String)
        #expect(stored.allSatisfy { $0["device"] as? String == identity }, "delivered by the watch")
        let sources = stored.compactMap { ($0["source"] as? [String: Any])?["name"] as? String }
        #expect(sources == ["Watch sensor", "Blood pressure cuff", "Watch sensor", "Watch sensor", "Watch sensor"])
        #expect(stored.compactMap { $0["unit"] as? String } == ["/min", "mm[Hg]", "{steps}", "mmol/L", "mg/dL"])
        #expect(await watch.quit())
    }

    /// A watch that measured an hour at 1 Hz while it could not reach the primary delivers it
    /// all, once, when the primary is back; and its sensor stops at the count it was given.
    @Test func aSensorsHourTakenOfflineArrivesWhenThePrimaryIsBack() async throws {
        let caresync = try await exampleStore(in: scratch)
        let first = try await PrimaryProcess(store: caresync.store)
        let endpoint = first.endpoint
        try await pairSimulator(store: caresync.store, locate: ["--connect", endpoint], stateDir: scratch.path("watch"))
        await first.stop(signal: SIGKILL)
        let hourAgo = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3600))
        let sensor = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"),
            ["--connect", endpoint, "--state-dir", scratch.path("watch"), "--json", "--sensor", "heart-rate:1s,steps:60s",
             "--sensor-from", hourAgo, "--sensor-count", "3000"])
        defer { sensor.terminate(signal: SIGKILL) }
        let done = try #require(await sensor.waitForLine { $0.contains("\"type\":\"sensor\"") }, "\(sensor.output.suffix(5))")
        #expect(done.contains("\"samples\":3000"))
        let restarted = try await PrimaryProcess(store: caresync.store, port: Int(endpoint.split(separator: ":").last!)!)
        defer { restarted.terminate() }
        try await waitFor("3,000 samples answered by the restarted primary", seen: { "\(sensor.output.suffix(5))" }) {
            sensor.output.compactMap(WatchProcess.object).filter { $0["type"] as? String == "measurements" }
                .map { ($0["stored"] as? Int ?? 0) + ($0["duplicates"] as? Int ?? 0) }.reduce(0, +) >= 3000
        }
        // Days around now in any time zone the plan may have.
        let days = [-2, 2].map { ISO8601DateFormatter.string(from: Date().addingTimeInterval(Double($0) * 86_400), timeZone: .gmt, formatOptions: .withFullDate) }
        let heartRates = try await listed(caresync, "--type", "heart-rate", "--from", days[0], "--to", days[1])
        let steps = try await listed(caresync, "--type", "steps", "--from", days[0], "--to", days[1])
        #expect(heartRates.count + steps.count == 3000)
        #expect((49...50).contains(steps.count), "a count a minute beside a heart rate a second: \(steps.count)")
        #expect(Set(heartRates.compactMap { $0["id"] as? String }).count == heartRates.count)
        sensor.send("quit")
        #expect(await sensor.waitForExit())
    }
}
