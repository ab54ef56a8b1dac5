import Foundation
import Testing

/// A household device's quiet hours on its own clock, in a real `household-sim`: only a
/// critical alert notifies at once, the other is held, still held after a restart, and
/// notified when the quiet hours end (here: are turned off).
struct HouseholdQuietHoursTests {
    let scratch = Scratch()
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    /// Quiet hours from two hours before now to two hours after, on this machine's clock.
    var quietAroundNow: String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        formatter.timeZone = .current
        return formatter.string(from: Date().addingTimeInterval(-7200)) + "-" + formatter.string(from: Date().addingTimeInterval(7200))
    }

    func startHousehold(_ primary: PrimaryProcess, _ extra: [String] = []) async throws -> RunningProcess {
        try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("household-sim"),
            ["--connect", primary.endpoint, "--state-dir", scratch.path("household"), "--json"] + extra)
    }

    func alerts(_ household: RunningProcess, count: Int) async throws -> [[String: Any]] {
        guard let lines = await household.waitForLines(count: count, where: { WatchProcess.object($0)?["type"] as? String == "alert" }) else {
            throw ProcessFailed(description: "no \(count) alerts: " + household.output.suffix(20).joined(separator: "\n"))
        }
        return lines.compactMap(WatchProcess.object)
    }

    @Test func inQuietHoursOnlyTheCriticalDoseNotifiesAndTheOtherWaitsEvenAcrossARestart() async throws {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Night", "patient": {"name": "Margaret"}, "timeZone": "UTC", "start": "\#(today)",
         "activities": [
           {"id": "insulin", "kind": "intervention", "title": "Insulin", "schedule": {"times": ["08:00"]}, "missedDose": {"critical": true}},
           {"id": "vitamin", "kind": "intervention", "title": "Vitamin", "schedule": {"times": ["08:00"]}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        #expect(try await caresync.run("plan", "load", plan, "--effective", today).status == 0)
        let primary = try await PrimaryProcess(store: caresync.store, clockStart: "\(today)T09:00:30Z")
        defer { primary.terminate() }
        try await pairSimulator(
            "household-sim", role: "household", store: caresync.store, locate: ["--connect", primary.endpoint],
            stateDir: scratch.path("household"))

        var household = try await startHousehold(primary, ["--quiet-hours", quietAroundNow])
        defer { household.terminate() }
        let arrived = try await alerts(household, count: 2)
        let notified = Dictionary(uniqueKeysWithValues: arrived.map { ($0["activity"] as? String ?? "", $0["notified"] as? Bool) })
        #expect(notified == ["insulin": true, "vitamin": false], "\(arrived)")
        household.send("quit")
        #expect(await household.waitForExit())
        let kept = try String(contentsOfFile: scratch.path("household/alerts.json"), encoding: .utf8)
        #expect(kept.contains("vitamin") && !kept.contains("insulin"), "\(kept)")

        // Restarted without saying so, it keeps its quiet hours and what it held.
        household = try await startHousehold(primary)
        try await #require(household.waitForLine { WatchProcess.object($0)?["type"] as? String == "context" } != nil)
        household.send("quiet off")
        let released = try #require(try await alerts(household, count: 1).first)
        #expect(released["activity"] as? String == "vitamin" && released["notified"] as? Bool == true)
        #expect(released["sequence"] as? Int == arrived.first { $0["activity"] as? String == "vitamin" }?["sequence"] as? Int)
        household.send("quit")
        #expect(await household.waitForExit())
        #expect(household.output.compactMap(WatchProcess.object).count { $0["type"] as? String == "alert" } == 1, "nothing came twice")
    }
}
