import Foundation
import Testing

/// Reminders as they fall due: the primary's clock starts an hour before 08:00 and the
/// test moves it there (`--clock-control`) once the watch is connected, rather than racing
/// the real clock to it.
@Suite struct ReminderScenarioTests {
    let scratch = Scratch()
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    /// A store with two 08:00 activities in UTC: `dose`, and `vitamin` as a sentinel.
    func store() async throws -> CareSyncCommand {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Reminders", "timeZone": "UTC", "start": "\#(today)", "activities": [
          {"id": "dose", "kind": "intervention", "title": "Dose", "schedule": {"times": ["08:00"]}},
          {"id": "vitamin", "kind": "intervention", "title": "Vitamin", "schedule": {"times": ["08:00"]}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", plan, "--effective", today)
        guard load.status == 0 else { throw CommandFailed(result: load) }
        return caresync
    }

    /// The plan's store, a primary whose clock stands at 07:00 today, and a watch connected
    /// to it that holds the plan's context.
    func watchAtSeven() async throws -> (CareSyncCommand, RunningProcess, WatchProcess) {
        let caresync = try await store()
        let primary = try await RunningProcess(CareSyncCommand.executable, [
            "primary", "--port", "0", "--json", "--no-advertise", "--store", caresync.store,
            "--clock-start", "\(today)T07:00:00Z", "--clock-control",
        ])
        do {
            let listening = try #require(await primary.waitForLine(where: { $0.contains("\"listening\"") }), "\(primary.output)")
            let port = try #require(WatchProcess.object(listening)?["port"] as? Int)
            let watch = try await WatchProcess(endpoint: "127.0.0.1:\(port)", stateDir: scratch.path("watch"), store: caresync.store)
            try await watch.waitFor("context")
            return (caresync, primary, watch)
        } catch {
            primary.terminate()
            throw error
        }
    }

    @Test func aReminderFallingDueReachesTheWatch() async throws {
        let (caresync, primary, watch) = try await watchAtSeven()
        defer { primary.terminate(signal: SIGTERM) }
        #expect(watch.messages("reminder").isEmpty)
        try await primary.advanceClock(by: 3600)
        let reminders = try await watch.waitFor("reminder", count: 2)
        #expect(Set(reminders.compactMap { $0["activity"] as? String }) == ["dose", "vitamin"])
        #expect(reminders.allSatisfy { $0["time"] as? String == "08:00" && $0["day"] as? String == today })
        // The primary's log has them too (its lines may reach us after the watch's).
        let logged = await primary.waitForLines(count: 2) { $0.contains("\"event\":\"reminder\"") } ?? []
        #expect(logged.count == 2)
        // Due at 08:00 UTC today, in the one JSON form of an instant.
        #expect(logged.allSatisfy { $0.contains("\"dueAt\":\"\(today)T08:00:00.000Z\"") }, "\(logged)")

        // Snooze the dose: the primary keeps it, snoozed, for later.
        watch.send("snooze dose 0 5")
        let listing = try await waitForSnoozed(caresync)
        #expect(listing.contains("\"activity\":\"dose\""))
    }

    @Test func completingTheEventFirstMeansNoReminder() async throws {
        let (caresync, primary, watch) = try await watchAtSeven()
        defer { primary.terminate(signal: SIGTERM) }
        let done = try await caresync.run("complete", "dose", "--occurrence", "0", "--date", today)
        #expect(done.status == 0, "\(done.stderr)")
        // The completion has reached the watch, so the primary has it too.
        try await watch.waitFor("context") { context in
            (context["incomplete"] as? [[String: Any]])?.contains { $0["activity"] as? String == "dose" } == false
        }
        try await primary.advanceClock(by: 3600)
        // The vitamin's reminder proves 08:00 has passed at the primary.
        try await watch.waitFor("reminder") { $0["activity"] as? String == "vitamin" }
        #expect(watch.messages("reminder").allSatisfy { $0["activity"] as? String != "dose" })
    }

    @Test func untimedOccurrencesAreRemindedAtTheRoutinesTimesListedInUTC() async throws {
        let plan = scratch.path("routine.json")
        try #"""
        {"title": "Routine", "timeZone": "Europe/Vienna", "start": "\#(today)",
         "routine": {"breakfast": "07:15", "dinner": "19:45"},
         "activities": [{"id": "tablet", "kind": "intervention", "title": "Tablet", "schedule": {"occurrences": 2}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("routine.sqlite"))
        #expect(try await caresync.run("plan", "load", plan, "--effective", today).status == 0)
        let primary = try await RunningProcess(CareSyncCommand.executable, [
            "primary", "--port", "0", "--json", "--no-advertise", "--store", caresync.store, "--clock-start", "\(today)T00:00:00Z",
        ])
        defer { primary.terminate(signal: SIGTERM) }
        #expect(await primary.waitForLine(where: { $0.contains("\"listening\"") }) != nil, "\(primary.output)")

        let window = try await waitForWindow(caresync)
        let todays = window.filter { $0["day"] as? String == today }
        #expect(todays.map { $0["time"] as? String } == ["07:15", "19:45"])
        var vienna = Calendar(identifier: .gregorian)
        vienna.timeZone = try #require(TimeZone(identifier: "Europe/Vienna"))
        let expected = [(7, 15), (19, 45)].compactMap { hour, minute in
            vienna.date(from: DateComponents(
                year: Int(today.prefix(4)), month: Int(today.dropFirst(5).prefix(2)), day: Int(today.suffix(2)), hour: hour, minute: minute))
        }
        #expect(expected.count == 2)
        #expect(try todays.map { try #require(utcInstant($0["dueAt"] as? String ?? "")) } == expected)
        // People read the patient's wall clock.
        #expect(try await caresync.run("reminders", "list").lines.first?.hasPrefix("\(today) 07:15  Tablet") == true)
    }

    /// `reminders list --json` once the primary has written its window.
    func waitForWindow(_ caresync: CareSyncCommand) async throws -> [[String: Any]] {
        try await waitFor("the primary's window of reminders", every: .milliseconds(100)) { () async throws -> Sighting<[[String: Any]]> in
            let lines = try await caresync.run("reminders", "list", "--json").lines
            guard !lines.isEmpty else { return .notYet("no reminders listed") }
            return .found(try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) })
        }
    }

    /// `reminders list --json` once it shows a snoozed reminder (the primary writes it).
    func waitForSnoozed(_ caresync: CareSyncCommand) async throws -> String {
        try await waitFor("a snoozed reminder", every: .milliseconds(100)) { () async throws -> Sighting<String> in
            let lines = try await caresync.run("reminders", "list", "--json").lines
            return lines.first { $0.contains("\"snoozed\"") }.map { .found($0) } ?? .notYet("\(lines)")
        }
    }
}
