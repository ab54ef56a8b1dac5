import Foundation
import Testing

extension MDNSTests {
/// Issue 19's household: two primaries on this machine under one advertised name (Avahi
/// renames the second), a watch on each, and one household device following both people,
/// all separate processes that find each other with DNS-SD in the mDNS sandbox.
@Suite struct HouseholdScenarioTests {
    let scratch = Scratch()
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    /// A store for `patient`'s plan: a dose at 08:00 and another at 09:00 (UTC), each
    /// missed an hour later.
    func store(_ file: String, patient: String) async throws -> CareSyncCommand {
        let plan = scratch.path("\(file).json")
        try #"""
        {"title": "\#(patient)'s plan", "patient": {"name": "\#(patient)"}, "timeZone": "UTC", "start": "\#(today)",
         "activities": [{"id": "dose", "kind": "intervention", "title": "Dose", "schedule": {"times": ["08:00", "09:00"]}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("\(file).sqlite"))
        let load = try await caresync.run("plan", "load", plan, "--effective", today)
        guard load.status == 0 else { throw CommandFailed(result: load) }
        return caresync
    }

    /// A primary advertised as `name`, its clock from `clock` (HH:MM:SS today, UTC); and the
    /// fingerprint it listens with.
    func primary(_ caresync: CareSyncCommand, name: String, clock: String) async throws -> (PrimaryProcess, String) {
        let primary = try await PrimaryProcess(store: caresync.store, name: name, clockStart: "\(today)T\(clock)Z")
        guard await primary.process.waitForLine(where: { $0.contains("\"advertised\"") }) != nil else {
            throw ProcessFailed(description: "not advertised: \(primary.process.output)")
        }
        let listening = try #require(primary.process.output.compactMap(WatchProcess.object).first { $0["event"] as? String == "listening" })
        return (primary, try #require(listening["fingerprint"] as? String))
    }

    /// `household-sim pair` with the primary of `caresync`, found on the network by `fingerprint`.
    func pairHousehold(_ caresync: CareSyncCommand, fingerprint: String) async throws {
        let code = try #require(WatchProcess.object(try await caresync.run("pair", "--role", "household", "--json").stdout)?["code"] as? String)
        let paired = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("household-sim"),
            ["pair", code, "--primary", fingerprint, "--state-dir", scratch.path("household"), "--json", "--log-level", "debug"])
        guard paired.status == 0 else { throw CommandFailed(result: paired) }
    }

    func startHousehold() async throws -> RunningProcess {
        try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("household-sim"), ["--state-dir", scratch.path("household"), "--json"])
    }

    /// The household's JSON lines of `type` about `person` (a name, or the primary's
    /// fingerprint), once `count` have come.
    @discardableResult
    func wait(_ process: RunningProcess, _ type: String, person: String, count: Int = 1,
              where predicate: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }) async throws -> [[String: Any]] {
        guard let lines = await process.waitForLines(count: count, where: { line in
            guard let object = WatchProcess.object(line) else { return false }
            return object["type"] as? String == type && predicate(object)
                && (object["person"] as? String == person || object["personID"] as? String == person)
        }) else {
            throw ProcessFailed(description: "no \(count) × \(type) for \(person); household:\n" + process.output.suffix(30).joined(separator: "\n"))
        }
        return lines.compactMap(WatchProcess.object)
    }

    @Test func oneHouseholdFollowsTwoPeopleThroughARestartAndHearsOfEachMissedDoseOnce() async throws {
        let mum = try await store("mum", patient: "Margaret")
        let dad = try await store("dad", patient: "Bernard")
        let name = "Family tablet \(UUID().uuidString.prefix(4))"
        // Margaret's 08:00 dose is missed at 09:00 on her primary's clock, moved there below.
        var (mums, mumsID) = try await primary(mum, name: name, clock: "08:30:00")
        let (dads, dadsID) = try await primary(dad, name: name, clock: "06:00:00")
        defer { mums.terminate(); dads.terminate() }
        // One name on one machine: Avahi renamed one; each is its own instance.
        let advertised = try [mums, dads].map { try #require($0.process.output.compactMap(WatchProcess.object).first { $0["event"] as? String == "advertised" }?["name"] as? String) }
        #expect(Set(advertised) == [name, "\(name) #2"], "\(advertised)")
        #expect(mumsID != dadsID && mums.port != dads.port)

        try await pairHousehold(mum, fingerprint: mumsID)
        try await pairHousehold(dad, fingerprint: dadsID)
        let mumsWatch = try await WatchProcess(discovering: mumsID, stateDir: scratch.path("mums-watch"), store: mum.store)
        let dadsWatch = try await WatchProcess(discovering: dadsID, stateDir: scratch.path("dads-watch"), store: dad.store)
        var household = try await startHousehold()
        defer { household.terminate() }
        try await wait(household, "context", person: "Margaret")
        try await wait(household, "context", person: "Bernard")
        // Whose plan: every person's day, or the one named by a beginning of their name.
        household.send("list")
        try await wait(household, "list", person: "Margaret")
        try await wait(household, "list", person: "Bernard")
        household.send("list --person bern")
        try await wait(household, "list", person: "Bernard", count: 2)
        household.send("history")
        let usage = try #require(await household.waitForLine { WatchProcess.object($0)?["code"] as? String == "USAGE" })
        #expect(usage.contains("Margaret") && usage.contains("Bernard"), "\(usage)")
        household.send("history --person \(dadsID.prefix(8)) 0")
        try await wait(household, "history", person: "Bernard") { $0["kind"] as? String == "devicePaired" }
        #expect(household.output.compactMap(WatchProcess.object).count { $0["type"] as? String == "list" && $0["person"] as? String == "Margaret" } == 1)

        // The missed dose: raised on Margaret's primary within a second of 09:00 on its clock.
        let deadline = try #require(utcInstant("\(today)T09:00:00.000Z"))
        try await mums.advanceClock(to: deadline.addingTimeInterval(0.2))
        let missed = try await wait(household, "alert", person: "Margaret") { $0["kind"] as? String == "missed" }[0]
        #expect(missed["activity"] as? String == "dose" && missed["occurrence"] as? Int == 0 && missed["day"] as? String == today)
        let raisedAt = try #require(utcInstant(missed["raisedAt"] as? String ?? ""))
        #expect((0...1).contains(raisedAt.timeIntervalSince(deadline)), "raised at \(raisedAt)")
        #expect(missed["notified"] as? Bool == true)
        // Taken late on her watch: the all clear follows.
        try await mumsWatch.waitFor("context")
        mumsWatch.send("complete dose 0")
        let clear = try await wait(household, "alert", person: "Margaret") { $0["kind"] as? String == "cleared" }[0]
        #expect(clear["outcome"] as? String == "completed")
        #expect(household.output.compactMap(WatchProcess.object).allSatisfy { $0["type"] as? String != "alert" || $0["person"] as? String == "Margaret" })

        // Margaret's primary is killed; Bernard's plan goes on meanwhile, on the household too.
        mums.terminate(signal: SIGKILL)
        #expect(await mums.process.waitForExit())
        try await dadsWatch.waitFor("context")
        dadsWatch.send("complete dose 0")
        try await dadsWatch.waitFor("reply") { $0["status"] as? String == "accepted" }
        try await wait(household, "context", person: "Bernard") { WatchProcess.event(in: $0, "dose", 0)?["state"] as? String == "completed" }
        // Back on another port: the household finds it again by itself.
        (mums, _) = try await primary(mum, name: name, clock: "09:30:00")
        try await wait(household, "connected", person: mumsID, count: 2)
        household.send("quit")
        #expect(await household.waitForExit())

        // With the household away, Margaret's primary restarts an hour later on its clock: the
        // 09:00 dose is missed while nobody follows.
        await mums.stop()
        (mums, _) = try await primary(mum, name: name, clock: "09:59:00")
        try await mums.advanceClock(by: 60)
        #expect(await mums.process.waitForLine { $0.contains("\"event\":\"alert\"") } != nil, "\(mums.process.output)")

        household = try await startHousehold()
        let backlog = try await wait(household, "alert", person: "Margaret")[0]
        #expect(backlog["kind"] as? String == "missed" && backlog["occurrence"] as? Int == 1)
        // Taken too: its all clear is the next alert, and the one missed came once.
        mumsWatch.send("complete dose 1")
        try await wait(household, "alert", person: "Margaret") { $0["kind"] as? String == "cleared" && $0["occurrence"] as? Int == 1 }
        let alerts = household.output.compactMap(WatchProcess.object).filter { $0["type"] as? String == "alert" }
        #expect(alerts.compactMap { $0["sequence"] as? Int } == [3, 4], "\(alerts)")
        household.send("quit")
        #expect(await household.waitForExit())
        _ = await mumsWatch.quit()
        _ = await dadsWatch.quit()
    }
}
}
