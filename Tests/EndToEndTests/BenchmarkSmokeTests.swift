import Foundation
import Testing

/// The benchmark runs end to end on a tiny workload and prints every figure it promises.
struct BenchmarkSmokeTests {
    @Test func storeBenchmarkPrintsEveryFigure() throws {
        let bench = CareSyncCommand.binDirectory.appendingPathComponent("caresync-bench")
        let result = try CareSyncCommand.run(executable: bench, [
            "store", "--years", "1", "--activities", "3", "--plan-activities", "8", "--repetitions", "5",
            "--single-writes", "5",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for figure in [
            "plan load, 8 activities", "events on a day (3 activities)", "completion status for 30 days",
            "outcome writes, one commit each", "outcome writes, 100 per commit",
            "day expansion, schedule began 10 years ago", "store events of a day, schedule 10 years old",
            "database size", "peak RSS",
        ] {
            #expect(result.lines.contains { $0.contains(figure) }, "missing \(figure)")
        }
        #expect(result.lines.contains { $0.contains("p50") && $0.contains("p99") })
    }

    @Test func syncBenchmarkPrintsEveryFigure() throws {
        let bench = CareSyncCommand.binDirectory.appendingPathComponent("caresync-bench")
        let result = try CareSyncCommand.run(executable: bench, [
            "sync", "--companions", "1,3", "--completions", "15", "--seconds", "0.5", "--sustained-limit", "50",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for figure in [
            "TCP round trip + one commit (the floor)", "round trip: complete() until .accepted",
            "fan-out: until every other companion has it", "sustained completions", "peak RSS", "round trip ÷ floor",
        ] {
            #expect(result.lines.contains { $0.contains(figure) }, "missing \(figure)")
        }
        #expect(result.lines.contains { $0.contains("3 companions") })
    }

    @Test func reminderBenchmarkPrintsItsFigures() throws {
        let result = try CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("caresync-bench"),
            ["reminders", "--activities", "20", "--repetitions", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("plan the window (64 pending)") && $0.contains("p50") })
        #expect(result.lines.contains { $0.contains("pending after planning") && $0.hasSuffix("64") })
        #expect(result.lines.contains { $0.contains("one completion, then re-plan") })
    }
}
