import Foundation
import Testing

/// One rule from every channel (issue 39): a day after today in the plan's time zone is
/// refused alike from a watch, a widget and a household device granted recording (each a
/// client written from `Protocol/` alone, `Protocol/clients/complete.py`), and from the command
/// line unless it says `--allow-future`. A household device that may not record is refused
/// before the record is consulted, with the event's state UNSPECIFIED as the protocol says.
struct FutureDayTests {
    let scratch = Scratch()

    /// A primary on a plan of one daily dose in `zone` from `start`, and its fingerprint.
    func start(zone: String, from start: String) async throws -> (CareSyncCommand, PrimaryProcess, String) {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Dose", "timeZone": "\#(zone)", "start": "\#(start)",
         "activities": [{"id": "dose", "kind": "intervention", "title": "Dose", "schedule": {"times": ["08:00"]}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        #expect(try await caresync.run("plan", "load", plan).status == 0)
        let primary = try await PrimaryProcess(store: caresync.store)
        let listening = try #require(primary.process.output.compactMap(WatchProcess.object).first { $0["event"] as? String == "listening" })
        return (caresync, primary, try #require(listening["fingerprint"] as? String))
    }

    /// The answer a raw client paired as `role` (its identity in `stateDir`) gets to a completion.
    func complete(
        _ primary: PrimaryProcess, fingerprint: String, stateDir: String, role: String, day: String
    ) async throws -> [String: Any] {
        let run = try await CareSyncCommand.run(
            executable: CareSyncCommand.repository.appendingPathComponent("scripts/protocol-client"),
            ["complete", "--port", "\(primary.port)", "--identity", stateDir + "/identity.pem", "--primary", fingerprint,
             "--role", role, "--activity", "dose", "--day", day, "--occurrence", "0", "--timeout", "60"])
        guard run.status == 0, let answer = run.lines.compactMap(WatchProcess.object).first else { throw CommandFailed(result: run) }
        return answer
    }

    @Test func aDayToComeIsRefusedAlikeFromEveryDeviceAndTheCommandLine() async throws {
        let zone = try #require(TimeZone(identifier: "Pacific/Kiritimati"))  // UTC+14: its today is often the UTC's tomorrow
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        func day(_ offset: Int) throws -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: try #require(calendar.date(byAdding: .day, value: offset, to: Date())))
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        let (today, tomorrow) = (try day(0), try day(1))
        let (caresync, primary, fingerprint) = try await start(zone: "Pacific/Kiritimati", from: try day(-1))
        defer { primary.terminate() }
        let devices: [(simulator: String, role: String, mayRecord: Bool)] = [
            ("watch-sim", "watch", false), ("widget-sim", "widget", false), ("household-sim", "household", true),
        ]
        for device in devices {
            try await pairSimulator(
                device.simulator, role: device.role, store: caresync.store, locate: ["--connect", primary.endpoint],
                stateDir: scratch.path(device.role), mayRecord: device.mayRecord)
        }
        let before = try await caresync.run("history", "--json").lines.count

        for device in devices {
            let answer = try await complete(
                primary, fingerprint: fingerprint, stateDir: scratch.path(device.role), role: "ROLE_\(device.role.uppercased())", day: tomorrow)
            let reply = try #require(answer["completion_reply"] as? [String: Any], "\(device.role): \(answer)")
            #expect(reply["status"] as? String == "STATUS_REJECTED", "\(device.role): \(reply)")
            #expect(reply["reason"] as? String == "REJECT_REASON_FUTURE_DAY", "\(device.role): \(reply)")
            #expect(reply["detail"] as? String == "\(tomorrow) is after today (\(today) in Pacific/Kiritimati): nothing recorded")
            #expect(reply["currentState"] as? String == "EVENT_STATE_INITIAL")
        }
        let cli = try await caresync.run("complete", "dose", "--occurrence", "0", "--date", tomorrow)
        #expect(cli.status == 1 && cli.stderr.contains("\(tomorrow) is after today (\(today) in Pacific/Kiritimati): nothing recorded"))
        #expect(cli.stderr.contains("--allow-future"))
        #expect(try await caresync.run("history", "--json").lines.count == before, "nothing recorded")

        // Today's is recorded from the watch, as ever.
        let recorded = try await complete(primary, fingerprint: fingerprint, stateDir: scratch.path("watch"), role: "ROLE_WATCH", day: today)
        #expect((recorded["completion_reply"] as? [String: Any])?["status"] as? String == "STATUS_ACCEPTED", "\(recorded)")
    }

    @Test func aHouseholdDeviceThatMayNotRecordIsRefusedBeforeTheRecordIsConsulted() async throws {
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let (caresync, primary, fingerprint) = try await start(zone: "UTC", from: today)
        defer { primary.terminate() }
        try await pairSimulator(
            "household-sim", role: "household", store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: scratch.path("household"))
        let answer = try await complete(
            primary, fingerprint: fingerprint, stateDir: scratch.path("household"), role: "ROLE_HOUSEHOLD", day: today)
        let reply = try #require(answer["completion_reply"] as? [String: Any], "\(answer)")
        #expect(reply["status"] as? String == "STATUS_REJECTED" && reply["reason"] as? String == "REJECT_REASON_NOT_PERMITTED")
        #expect(reply["currentState"] as? String == "EVENT_STATE_UNSPECIFIED", "\(reply)")
    }
}
