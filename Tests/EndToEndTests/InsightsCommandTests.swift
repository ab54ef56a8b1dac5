import Foundation
import Testing

/// `caresync insights` on the example plan: ten days of Z-Cure and pain, recorded through
/// the command line, and the messages and chart worked out by hand.
struct InsightsCommandTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand

    struct Insights: Decodable {
        struct Message: Decodable {
            struct Figure: Decodable { var name: String; var value: Double; var unit: String? }
            var kind: String; var rule: String; var activities: [String]; var text: String; var days: [String]; var figures: [Figure]
            func figure(_ name: String) -> Double? { figures.first { $0.name == name }?.value }
        }
        struct Chart: Decodable {
            struct Group: Decodable { var identifier: String }
            struct Series: Decodable { var activity: String; var title: String; var values: [Double?]; var normalized: [Double?] }
            var grouping: String; var groups: [Group]; var series: [Series]
        }
        var first: String; var last: String; var messages: [Message]; var chart: Chart
        func message(_ rule: String, _ activity: String) throws -> Message {
            try #require(messages.first { $0.rule == rule && $0.activities.first == activity })
        }
    }

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-01")
        guard load.status == 0 else { throw CommandFailed(result: load) }
        // Z-Cure (from Friday 20th, 08:00 and 20:00): both doses on the 20th, 22nd and 24th,
        // the morning one on the 21st, 23rd and 25th.
        for day in 20...25 {
            for occurrence in day % 2 == 0 ? ["0", "1"] : ["0"] {
                try await record("z-cure", "--occurrence", occurrence, "--date", "2026-11-\(day)")
            }
        }
        // Pain from the 16th: 8 8 7 1 3 8 2 7 3 8.
        for (offset, pain) in [8, 8, 7, 1, 3, 8, 2, 7, 3, 8].enumerated() {
            try await record("pain", "--occurrence", "0", "--date", "2026-11-\(16 + offset)", "--value", "\(pain)")
        }
    }

    func record(_ arguments: String...) async throws {
        let result = try await CareSyncCommand.run(
            executable: CareSyncCommand.executable, ["complete"] + arguments + ["--store", scratch.path("store.sqlite")])
        guard result.status == 0 else { throw CommandFailed(result: result) }
    }

    @Test func theMessagesAndTheChartRestOnTheRecord() async throws {
        let insights = try await caresync.json(Insights.self, "insights", "--from", "2026-11-16", "--to", "2026-11-25", "--json")
        #expect(insights.first == "2026-11-16" && insights.last == "2026-11-25")
        // The last 7 days (19th–25th): Z-Cure 9 of 12.
        let adherence = try insights.message("adherence", "z-cure")
        #expect(adherence.figure("completed") == 9 && adherence.figure("due") == 12)
        // Pain 7 or more on the 16th, 17th, 18th, 21st, 23rd and 25th.
        let pain = try insights.message("range", "pain")
        #expect(pain.days == ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-21", "2026-11-23", "2026-11-25"])
        #expect(pain.figure("highest") == 8)
        // In full on the 20th, 22nd, 24th: pain 3, 2, 3; the other Z-Cure days 8, 7, 8.
        let comparison = try insights.message("comparison", "z-cure")
        #expect(comparison.activities == ["z-cure", "pain"])
        #expect(comparison.figure("difference") == -5)
        #expect(comparison.text.hasPrefix("On the 3 days Z-Cure 50 mg was done in full, pain averaged 2.7; on the 3 other days, 7.7 (5 lower)."))
        #expect(insights.messages.last?.kind == "tip")

        #expect(insights.chart.grouping == "day" && insights.chart.groups.count == 10)
        let zcure = try #require(insights.chart.series.first { $0.activity == "z-cure" })
        #expect(zcure.values == [nil, nil, nil, nil, 100, 50, 100, 50, 100, 50])
        let painBars = try #require(insights.chart.series.first { $0.activity == "pain" })
        #expect(painBars.normalized == [0.8, 0.8, 0.7, 0.1, 0.3, 0.8, 0.2, 0.7, 0.3, 0.8])
    }

    @Test func theTerminalShowsTheMessagesAndBars() async throws {
        let text = try await caresync.run("insights", "--week", "2026-11-18")
        #expect(text.status == 0)
        #expect(text.lines.first == "ZombieCare · insights 2026-11-16 – 2026-11-22 · Europe/Vienna")
        #expect(text.lines.contains("  ! Pain: outside the usual range"))
        #expect(text.lines.contains("  Z-Cure 50 mg  (adherence, 0–100 %)"))
        #expect(text.lines.contains("    Fri 2026-11-20  ████████████████████  100 %"))
        #expect(text.lines.contains("    Sat 2026-11-21  ██████████░░░░░░░░░░  50 %"))
        #expect(text.lines.contains("    Mon 2026-11-16  ····················  no data"))
        #expect(text.lines.contains("  Pain  (mean, 0 (none)–10 (unbearable))"))

        let both = try await caresync.run("insights", "--week", "2026-11-18", "--from", "2026-11-16")
        #expect(both.status != 0 && both.stderr.contains("give --week or --from/--to, not both"))
    }

    @Test func theReportCommandWritesHTMLAndRefusesAnUnknownFormat() async throws {
        let file = scratch.path("report.html")
        let written = try await caresync.run(
            "report", "--from", "2026-11-16", "--to", "2026-11-25", "--lang", "de", "--comment", "Bitte ansehen.", "--out", file)
        #expect(written.lines == ["Wrote the report of 2026-11-16 – 2026-11-25 to \(file)"])
        let html = try String(contentsOfFile: file, encoding: .utf8)
        #expect(html.contains("<h1>Pflegebericht: ZombieCare</h1>") && html.contains("Bitte ansehen."))
        let odd = try await caresync.run("report", "--out", scratch.path("report.docx"))
        #expect(odd.status != 0 && odd.stderr.contains("name it FILE.html or FILE.pdf"))
    }
}
