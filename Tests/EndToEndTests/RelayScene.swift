import Foundation
import RelayProtocol
import Testing

/// What the relay tests share: Margaret's one-dose plan, a primary waiting on relays, and
/// devices paired at home and then started away (`--relay-only`).
struct RelayScene {
    let scratch: Scratch
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    /// Margaret's plan: one dose at 08:00 (UTC), missed at 09:00.
    func margaretsStore() async throws -> CareSyncCommand {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Margaret's plan", "patient": {"name": "Margaret Hale"}, "timeZone": "UTC", "start": "\#(today)",
         "activities": [{"id": "dose", "kind": "intervention", "title": "Levothyroxine", "schedule": {"times": ["08:00"]}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", plan, "--effective", today)
        guard load.status == 0 else { throw CommandFailed(result: load) }
        return caresync
    }

    /// A primary waiting on `relays` (its `--relay` options), once it says it joined each; its
    /// clock starts at `clock` (HH:MM:SS today, UTC) if given.
    func primary(_ caresync: CareSyncCommand, relays: [RelayAddress], clock: String? = nil) async throws -> PrimaryProcess {
        let primary = try await PrimaryProcess(
            store: caresync.store, clockStart: clock.map { "\(today)T\($0)Z" }, extra: relays.flatMap { ["--relay", $0.description] })
        guard await primary.process.waitForLines(count: relays.count, where: Self.joined) != nil else {
            primary.terminate()
            throw ProcessFailed(description: "the primary joined no relay: \(primary.process.output)")
        }
        return primary
    }

    /// A primary's line saying it joined a relay.
    static let joined: @Sendable (String) -> Bool = { line in
        WatchProcess.object(line).map { $0["event"] as? String == "relay" && $0["status"] as? String == "joined" } ?? false
    }

    /// A simulator paired at home (`pairOptions` for `caresync pair`), then started away with
    /// `extra` options, once it is connected through the relay.
    func away(
        _ caresync: CareSyncCommand, primary: PrimaryProcess, simulator: String = "household-sim", role: String = "household",
        stateDir: String? = nil, pairOptions: [String] = [], extra: [String] = []
    ) async throws -> WatchProcess {
        let stateDir = stateDir ?? scratch.path(role)
        try await pairSimulator(
            simulator, role: role, store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: stateDir, pairOptions: pairOptions)
        let device = WatchProcess(process: try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent(simulator), ["--state-dir", stateDir, "--json", "--relay-only"] + extra))
        #expect(try await device.waitFor("connected").first?["way"] as? String == "relay 127.0.0.1")
        return device
    }

    /// The outcomes recorded for Margaret's dose today, from the primary's history.
    func doseOutcomes(_ caresync: CareSyncCommand) async throws -> [[String: Any]] {
        try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object).filter {
            $0["activity"] as? String == "dose" && $0["kind"] as? String == "outcomeRecorded"
        }
    }
}
