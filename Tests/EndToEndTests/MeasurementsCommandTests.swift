import Foundation
import Testing

/// `caresync measurements`: added by hand, refused with a reason, listed and summed up per
/// day in the plan's time zone.
struct MeasurementsCommandTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-16")
        guard load.status == 0 else { throw CommandFailed(result: load) }
    }

    @Test func measurementsAddedByHandAreListedAndSummedUp() async throws {
        for arguments in [
            ["heart-rate", "72", "--at", "2026-11-18T08:00", "--source", "Wrist cuff"],
            ["heart-rate", "90", "bpm", "--at", "2026-11-18T20:00"],
            ["blood-pressure", "120/80", "mmHg", "--at", "2026-11-18T08:05"],
            ["steps", "1200", "--at", "2026-11-18T10:00", "--until", "2026-11-18T11:00"],
            ["glucose", "108.1", "mg/dL", "--at", "2026-11-18T12:00"],
            ["heart-rate", "64", "--at", "2026-11-19T08:00"],
        ] {
            let added = try await CareSyncCommand.run(
                executable: CareSyncCommand.executable, ["measurements", "add"] + arguments + ["--store", caresync.store])
            #expect(added.status == 0, "\(arguments): \(added.stderr)")
        }
        let refused = try await caresync.run("measurements", "add", "heart-rate", "400")
        #expect(refused.status == 1 && refused.stderr.contains("heart-rate 400 /min is not plausible: from 20 to 300"), "\(refused.stderr)")
        let wrongUnit = try await caresync.run("measurements", "add", "steps", "10", "mmHg")
        #expect(wrongUnit.stderr.contains("steps does not come in \"mmHg\""), "\(wrongUnit.stderr)")

        let listed = try await caresync.run("measurements", "--from", "2026-11-18", "--to", "2026-11-18")
        #expect(listed.lines == [
            "2026-11-18 08:00  heart-rate  72 /min  Wrist cuff",
            "2026-11-18 08:05  blood-pressure  120/80 mmHg  Entered by hand",
            "2026-11-18 10:00–11:00  steps  1200 steps  Entered by hand",
            "2026-11-18 12:00  glucose  108.1 mg/dL  Entered by hand",
            "2026-11-18 20:00  heart-rate  90 /min  Entered by hand",
        ], "\(listed.stdout)")
        let summary = try await caresync.run("measurements", "--from", "2026-11-18", "--to", "2026-11-19", "--summary")
        #expect(summary.lines == [
            "2026-11-18  heart-rate  2 × 72–90, mean 81 /min",
            "2026-11-18  steps  1 × 1200–1200, mean 1200, total 1200 steps",
            "2026-11-18  blood-pressure  1 × 120–120, mean 120/80 mmHg",
            "2026-11-18  glucose  1 × 6–6, mean 6 mmol/L",
            "2026-11-19  heart-rate  1 × 64–64, mean 64 /min",
        ], "\(summary.stdout)")
        let json = try await caresync.run("measurements", "--type", "blood-pressure", "--from", "2026-11-18", "--json")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.count == 1 && objects[0]["value"] as? Double == 120 && objects[0]["diastolic"] as? Double == 80)
        #expect((objects[0]["source"] as? [String: Any])?["name"] as? String == "Entered by hand")
        #expect(objects[0]["device"] as? String == "caresync-cli" && objects[0]["unit"] as? String == "mm[Hg]")
        // The example plan's blood-pressure assessment is answered by a blood-pressure measurement.
        let answering = try await caresync.run("measurements", "add", "blood-pressure", "131/84", "--at", "2026-11-19T08:10")
        #expect(answering.stdout.contains("it completes blood-pressure@2026-11-19#0"), "\(answering.stdout)")
        let event = try await caresync.run("history", "--activity", "blood-pressure", "--json")
        #expect(event.stdout.contains("131") && event.stdout.contains("systolic"), "\(event.stdout)")
    }
}
