import Foundation
import Testing

/// End-to-end: the built `caresync` executable, run as a process.
struct CareSyncCommandTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand
    let day = "2026-11-23"  // a Monday

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-01")
        guard load.status == 0 else { throw CommandFailed(result: load) }
    }

    func revision() async throws -> Int {
        try await caresync.run("history", "--json").lines.count
    }

    /// The primary's first line says where it listens, even when it starts with doses already
    /// missed: their alerts, raised as it starts, follow that line.
    @Test func thePrimarysFirstLineIsWhereItListensAndAlertsFollow() async throws {
        let primary = try await PrimaryProcess(store: caresync.store, clockStart: "\(day)T12:00:00Z")
        defer { primary.terminate() }
        #expect(await primary.process.waitForLine { $0.contains("\"alert\"") } != nil)
        let events = primary.process.output.compactMap(WatchProcess.object).compactMap { $0["event"] as? String }
        #expect(events.first == "listening")
        #expect(events.dropFirst().contains("alert"))
    }

    /// `--clock-control` (a test facility) moves the clock only forward and only when asked
    /// plainly: anything else is answered with what it takes, and the clock stays where it was.
    @Test func theClockControlRefusesWhatIsNotAnAdvanceAndMovesOnlyForward() async throws {
        let primary = try await PrimaryProcess(store: caresync.store, clockStart: "\(day)T12:00:00Z")
        defer { primary.terminate() }
        let start = try await primary.process.advanceClock(by: 0)
        let isClock: @Sendable (String) -> Bool = { $0.contains("\"event\":\"clock\"") }
        for command in ["advance -5", "advance soon", "advance", "advance 1 2", "advance nan", "wind back 60"] {
            let answered = primary.process.output.filter(isClock).count
            primary.process.send(command)
            let answer = try #require(await primary.process.waitForLines(count: answered + 1, where: isClock)?[answered])
            let refusal = try #require(WatchProcess.object(answer)?["error"] as? String, "\(command): \(answer)")
            #expect(refusal.contains(command) && refusal.contains("advance SECONDS"), "\(refusal)")
        }
        let moved = try await primary.process.advanceClock(by: 90.5)
        // 90.5 s on from where it was, give or take the real time the commands took.
        #expect((90.5...(90.5 + patience.inSeconds)).contains(moved.timeIntervalSince(start)), "\(start) → \(moved)")
    }

    @Test func todaysCareCardAndCompletions() async throws {
        let before = try await caresync.json(CareCard.self, "today", "--date", day, "--json")
        #expect(before.plan.title == "ZombieCare")
        #expect(before.plan.timeZone == "Europe/Vienna")
        #expect(before.day == day)
        #expect(before.adherence == Tally(completed: 0, total: 12, percent: 0))
        #expect(before.interventions.total == 8)
        #expect(Set(before.events.map(\.activity)) == [
            "golden-apple", "no-brains", "garlic-tonic", "stretches", "z-cure", "pain", "mood", "weight",
        ])
        #expect(before.events.filter { $0.activity == "golden-apple" }.map(\.time) == ["08:00", "13:00", "19:00"])

        let apple = try await caresync.run("complete", "golden-apple", "--occurrence", "1", "--date", day)
        #expect(apple.status == 0)
        #expect(apple.stdout.contains("golden-apple@2026-11-23#1: done"))
        #expect(try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "4", "--date", day).status == 0)
        #expect(try await caresync.run("complete", "z-cure", "--occurrence", "0", "--not-done", "--reason", "nausea", "--date", day).status == 0)

        let after = try await caresync.json(CareCard.self, "today", "--date", day, "--json")
        #expect(after.adherence == Tally(completed: 2, total: 12, percent: 17))
        #expect(after.revision == before.revision + 3)
        let pain = try #require(after.events.first { $0.activity == "pain" })
        #expect(pain.state == "completed")
        #expect(pain.values == [Event.Value(integer: 4)])
        #expect(pain.device == "caresync-cli")
        let missed = try #require(after.events.first { $0.activity == "z-cure" && $0.occurrence == 0 })
        #expect(missed.state == "notCompleted")
        #expect(missed.reason == "nausea")

        let card = try await caresync.run("today", "--date", day)
        #expect(card.stdout.contains("Adherence 17% (2 of 12 done)"))
        #expect(card.lines.contains { $0.contains("Golden apple") && $0.contains("○●○") })
        #expect(card.lines.contains { $0.contains("Z-Cure") && $0.contains("×○") })
    }

    @Test func refusalsPrintOneLineAndWriteNothing() async throws {
        let before = try await revision()
        let cases: [([String], String)] = [
            (["complete", "nope", "--occurrence", "0", "--date", day], #"unknown activity "nope""#),
            (["complete", "golden-apple", "--occurrence", "3", "--date", day], "has 3 occurrences on 2026-11-23 (0...2), not 3"),
            (["complete", "stretches", "--occurrence", "0", "--date", "2026-11-24"], #""stretches" has no events on 2026-11-24"#),
            (["complete", "golden-apple", "--occurrence", "0", "--date", "2026-10-01"], "has no events on 2026-10-01"),
            (["complete", "pain", "--occurrence", "0", "--value", "11", "--date", day], "11 is outside the scale 0...10"),
            (["complete", "pain", "--occurrence", "0", "--value", "seven", "--date", day], #""seven" is not a whole number"#),
            (["complete", "blood-pressure", "--occurrence", "0", "--value", "120", "--date", "2026-11-22"], "needs 2 values, found 1"),
            (["events", "nope", "--from", day, "--to", day], #"unknown activity "nope""#),
        ]
        for (arguments, message) in cases {
            let result = try await CareSyncCommand.run(executable: CareSyncCommand.executable, arguments + ["--store", caresync.store])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("caresync: ") && result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try await revision() == before)
    }

    /// `--unit` converts into the assessment's unit (issue 53, item 8): 72.5 lb on a weight
    /// asked in kilograms is stored as 32.89 kg, never as 72.5 lb beside kilograms.
    @Test func aWeightTypedInPoundsIsStoredInKilograms() async throws {
        let result = try await caresync.run("complete", "weight", "--occurrence", "0", "--date", day, "--value", "72.5", "--unit", "lb")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("weight@\(day)#0: done (32.89 kg), revision "), "\(result.stdout)")
        let card = try await caresync.json(CareCard.self, "today", "--date", day, "--json")
        #expect(card.events.first { $0.activity == "weight" }?.values == [Event.Value(decimal: 32.89, unit: "kg")])
        let history = try await caresync.run("history", "--json")
        #expect(history.lines.last?.contains("\"unit\":\"kg\"") == true && !history.stdout.contains("\"lb\""), "\(history.stdout)")
    }

    /// A reading no body gives, a unit that does not convert and a value on an intervention
    /// are refused in one line (issue 53, item 8), and nothing is written.
    @Test func implausibleReadingsAreRefusedInOneLineAndWriteNothing() async throws {
        let before = try await revision()
        let sunday = "2026-11-22"  // the blood pressure's day
        let cases: [([String], String)] = [
            (["weight", "--date", day, "--value", "-3"], "-3 is not a plausible value (0.25 to 650)"),
            (["weight", "--date", day, "--value", "0"], "0 is not a plausible value (0.25 to 650)"),
            (["weight", "--date", day, "--value", "725"], "725 is not a plausible value (0.25 to 650)"),
            (["weight", "--date", day, "--value", "1e3"], #""1e3" is not a number in kg"#),
            (["weight", "--date", day, "--value", "5", "--unit", "mmol/L"], "the result is in kg, not mmol/L"),
            (["blood-pressure", "--date", sunday, "--value", "80", "--value", "120"], "the diastolic 120 is not below the systolic 80"),
            (["golden-apple", "--date", day, "--value", "5"], "this activity asks for no value, found 1"),
        ]
        for (arguments, message) in cases {
            let result = try await caresync.run(["complete"] + arguments + ["--occurrence", "0"])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "caresync: \(message)\n", "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try await revision() == before)
    }

    @Test func anOutcomeForADayAfterTodayIsRefusedUnlessMeant() async throws {
        var vienna = Calendar(identifier: .gregorian)
        vienna.timeZone = try #require(TimeZone(identifier: "Europe/Vienna"))
        let tomorrowDate = try #require(vienna.date(byAdding: .day, value: 1, to: Date()))
        let parts = vienna.dateComponents([.year, .month, .day], from: tomorrowDate)
        let tomorrow = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        let before = try await revision()

        let refused = try await caresync.run("complete", "golden-apple", "--occurrence", "0", "--date", tomorrow)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("caresync: \(tomorrow) is after today"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-future"))
        #expect(try await revision() == before)

        let meant = try await caresync.run("complete", "golden-apple", "--occurrence", "0", "--date", tomorrow, "--allow-future")
        #expect(meant.status == 0, "\(meant.stderr)")
        #expect(try await revision() == before + 1)
        let card = try await caresync.json(CareCard.self, "today", "--date", tomorrow, "--json")
        #expect(card.events.first { $0.activity == "golden-apple" && $0.occurrence == 0 }?.state == "completed")
    }

    @Test func aBrokenPlanFileIsNamedAndWritesNothing() async throws {
        let before = try await revision()
        let file = scratch.path("broken.json")
        try #"""
        {"title": "T", "timeZone": "Europe/Vienna",
         "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"times": ["7:00"]}}]}
        """#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await caresync.run("plan", "load", file)
        #expect(result.status == 1)
        #expect(result.stderr == "caresync: \(file): $.activities[0].schedule.times[0]: expected a time as HH:MM, found \"7:00\"\n")
        #expect(try await revision() == before)
    }

    @Test func strictPlanDocumentsAreRefusedWithOneLine() async throws {
        let before = try await revision()
        let cases: [(String, String)] = [
            ("{\n  \"title\": \"T\",\n  \"timeZone\": \"Europe/Vienna\",\n}\n", #"line 3, column 30: trailing comma before "}""#),
            ("{\"title\": \"T\", // no comments\n\"timeZone\": \"UTC\"}", "line 1, column 16: comments are not allowed in JSON"),
            (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": 1, "daysofweek": ["monday"]}}]}"#,
             #"$.activities[0].schedule.daysofweek: unknown field; did you mean "daysOfWeek"?"#),
            (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": 2.5}}]}"#,
             "$.activities[0].schedule.occurrences: expected a whole number from 1 to 96, found 2.5"),
            (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": 1e30}}]}"#,
             "$.activities[0].schedule.occurrences: expected a whole number from 1 to 96, found 1e30"),
        ]
        for (index, (json, message)) in cases.enumerated() {
            let file = scratch.path("strict-\(index).json")
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            let result = try await caresync.run("plan", "load", file)
            #expect(result.status == 1)
            #expect(result.stderr == "caresync: \(file): \(message)\n")
            #expect(result.stdout.isEmpty)
        }
        #expect(try await revision() == before)
    }

    @Test func theMinimalPlanShownAsJSONLoadsBackUnchanged() async throws {
        let store = CareSyncCommand(store: scratch.path("minimal.sqlite"))
        let load = try await store.run("plan", "load", CareSyncCommand.example("minimal-plan.json"), "--effective", "2026-11-01")
        #expect(load.status == 0, "\(load.stderr)")
        let shown = try await store.run("plan", "show", "--json")
        let file = scratch.path("minimal-shown.json")
        try shown.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let again = try await store.json(LoadReport.self, "plan", "load", file, "--json")
        #expect(again.unchanged == ["lisinopril"])
        #expect(again.added.isEmpty && again.updated.isEmpty && again.ended.isEmpty)
    }

    @Test func eventsOverARange() async throws {
        try await caresync.run("complete", "mood", "--occurrence", "1", "--value", "5", "--date", "2026-11-24")
        let list = try await caresync.json(EventList.self, "events", "mood", "--from", "2026-11-22", "--to", "2026-11-28", "--json")
        #expect(list.activity == "mood")
        // Sunday 0, Monday 2, Tuesday 1, Wednesday 2, Thursday 1, Friday 2, Saturday 0.
        #expect(list.events.map(\.day) == ["2026-11-23", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-27"])
        #expect(list.events.map(\.state).filter { $0 == "completed" }.count == 0)
        let tuesday = try await caresync.json(EventList.self, "events", "mood", "--from", "2026-11-24", "--to", "2026-11-24", "--json")
        #expect(tuesday.events.count == 1)
        // Occurrence 1 on a day with a single occurrence was refused above, so nothing is recorded.
        #expect(tuesday.events[0].state == "initial")
    }

    @Test func planShowJSONLoadsBackUnchanged() async throws {
        let shown = try await caresync.run("plan", "show", "--json")
        #expect(shown.status == 0)
        let file = scratch.path("shown.json")
        try shown.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let again = try await caresync.json(LoadReport.self, "plan", "load", file, "--json")
        #expect(again.added.isEmpty && again.updated.isEmpty && again.ended.isEmpty)
        #expect(again.unchanged.count == 9)
        let other = CareSyncCommand(store: scratch.path("other.sqlite"))
        // Effective from the plan's start, so that the Monday below is governed whatever today is.
        let copy = try await other.json(LoadReport.self, "plan", "load", file, "--effective", "2026-11-01", "--json")
        #expect(copy.added.count == 9)
        #expect(try await other.json(CareCard.self, "today", "--date", day, "--json").adherence.total == 12)
    }

    @Test func historyShowsEveryChangeWithItsDevice() async throws {
        try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "2", "--date", day, "--device", "kitchen-tablet")
        try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "6", "--date", day)
        let changes = try await caresync.run("history", "--json", "--activity", "pain").lines.map {
            try JSONDecoder().decode(Change.self, from: Data($0.utf8))
        }
        #expect(changes.map(\.kind) == ["activityAdded", "outcomeRecorded", "outcomeRecorded"])
        #expect(changes.map(\.device) == ["caresync-cli", "kitchen-tablet", "caresync-cli"])
        #expect(changes.map(\.revision) == changes.map(\.revision).sorted())
        #expect(changes.last?.event == Change.Key(activity: "pain", day: day, occurrence: 0))
    }
}

/// Commands on a store created by `init` rather than by loading a plan.
struct InitCommandTests {
    let scratch = Scratch()

    @Test func initThenAnEmptyCareCard() async throws {
        let store = scratch.path("nested/dir/store.sqlite")
        // Store options go before the command as well as after it.
        let created = try await CareSyncCommand.run(
            executable: CareSyncCommand.executable,
            ["--store", store, "init", "--title", "Mum's plan", "--time-zone", "America/New_York"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("\"Mum's plan\" (America/New_York)"))
        let card = try await CareSyncCommand(store: store).json(CareCard.self, "today", "--date", "2026-03-08", "--json")
        #expect(card.plan.title == "Mum's plan")
        #expect(card.events.isEmpty)
        #expect(card.adherence == Tally(completed: 0, total: 0, percent: nil))
        let text = try await CareSyncCommand.run(executable: CareSyncCommand.executable, ["--store=\(store)", "today"])
        #expect(text.stdout.contains("Nothing scheduled"))
    }

    @Test func initRefusesAnUnknownTimeZone() async throws {
        let store = scratch.path("store.sqlite")
        let result = try await CareSyncCommand(store: store).run("init", "--time-zone", "Europe/Atlantis")
        #expect(result.status == 1)
        #expect(result.stderr == "caresync: unknown time zone \"Europe/Atlantis\": use an IANA name such as Europe/Vienna\n")
    }

    @Test func activitiesByKindGroupAndTagInPages() async throws {
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"))
        #expect(try await caresync.run("activities", "--kind", "assessment").lines.map { $0.split(separator: " ")[0] }
            == ["pain", "mood", "weight", "blood-pressure"])
        #expect(try await caresync.run("activities", "--group", "diet").lines.count == 2)
        #expect(try await caresync.run("activities", "--tag", "medication").lines.first?.hasPrefix("z-cure") == true)
        #expect(try await caresync.run("activities", "--limit", "4", "--offset", "4").lines.count == 4)
        #expect(try await caresync.run("activities", "--limit", "4", "--offset", "8").lines.count == 1)
    }
}
