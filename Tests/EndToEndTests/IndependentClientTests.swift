import Foundation
import Testing

/// A client written from `Protocol/` alone (`Protocol/clients/household_alerts.py`: Python's
/// ssl and Google's protobuf runtime, run by `scripts/protocol-client`) receives a running
/// primary's dose alerts with a paired household identity: the backlog it has not handled,
/// then only what came after the sequence it names.
struct IndependentClientTests {
    let scratch = Scratch()
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    func client(_ primary: PrimaryProcess, fingerprint: String, after: Int) async throws -> [[String: Any]] {
        let run = try await CareSyncCommand.run(
            executable: CareSyncCommand.repository.appendingPathComponent("scripts/protocol-client"),
            ["household_alerts", "--port", "\(primary.port)", "--identity", scratch.path("household/identity.pem"),
             "--primary", fingerprint, "--alerts-after", "\(after)", "--count", "1", "--timeout", "60"])
        guard run.status == 0 else { throw CommandFailed(result: run) }
        return run.lines.compactMap(WatchProcess.object)
    }

    @Test func aClientWrittenFromTheProtocolAloneReceivesAlertsAfterTheOneItNames() async throws {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Alerts", "timeZone": "UTC", "start": "\#(today)",
         "activities": [{"id": "dose", "kind": "intervention", "title": "Dose", "schedule": {"times": ["08:00"]},
                         "missedDose": {"critical": true}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        #expect(try await caresync.run("plan", "load", plan, "--effective", today).status == 0)
        // Its clock starts after 09:00: the 08:00 dose is missed as it starts.
        let primary = try await PrimaryProcess(store: caresync.store, clockStart: "\(today)T09:00:30Z")
        defer { primary.terminate() }
        let listening = try #require(primary.process.output.compactMap(WatchProcess.object).first { $0["event"] as? String == "listening" })
        let fingerprint = try #require(listening["fingerprint"] as? String)
        try await pairSimulator(
            "household-sim", role: "household", store: caresync.store, locate: ["--connect", primary.endpoint],
            stateDir: scratch.path("household"))

        let missed = try #require(try await client(primary, fingerprint: fingerprint, after: 0).first)
        #expect(missed["kind"] as? String == "DOSE_ALERT_KIND_MISSED")
        #expect(missed["activityId"] as? String == "dose" && missed["day"] as? String == today && missed["time"] as? String == "08:00")
        #expect(missed["sequence"] as? String == "1" && missed["critical"] as? Bool == true)

        #expect(try await caresync.run("complete", "dose", "--occurrence", "0", "--date", today).status == 0)
        let clear = try #require(try await client(primary, fingerprint: fingerprint, after: 1).first)
        #expect(clear["kind"] as? String == "DOSE_ALERT_KIND_CLEARED")
        #expect(clear["sequence"] as? String == "2" && clear["outcome"] as? String == "EVENT_STATE_COMPLETED")
    }
}
