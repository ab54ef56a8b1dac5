import Foundation
import Testing

/// Text output shows what people and FHIR servers wrote without letting it drive the
/// terminal (issue 53); `--json` prints it as JSON always has.
struct TerminalOutputTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand
    static let title = "\u{1B}]0;owned\u{07}Plan\u{1B}[2J"
    static let activity = "\u{1B}[2K\u{1B}[1AApple\u{9B} \u{202E}raw"

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let plan: [String: Any] = [
            "title": Self.title, "timeZone": "UTC",
            "activities": [["id": "apple", "kind": "intervention", "title": Self.activity,
                            "schedule": ["times": ["08:00"], "start": "2026-11-01"]]],
        ]
        let file = scratch.path("plan.json")
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: file))
        let load = try await caresync.run("plan", "load", file, "--effective", "2026-11-01")
        guard load.status == 0 else { throw CommandFailed(result: load) }
        #expect(load.stdout.hasPrefix("Loaded \"␛]0;owned␇Plan␛[2J\" from "))
    }

    /// No control but the line feed reaches standard output.
    func expectNeutral(_ text: String) {
        #expect(!text.unicodeScalars.contains { $0 != "\n" && ($0.properties.generalCategory == .control || (0x202A...0x202E).contains($0.value)) },
                "\(text.debugDescription)")
    }

    @Test func todayAndPlanShowShowTheControlsAsSymbols() async throws {
        let today = try await caresync.run("today", "--date", "2026-11-23")
        expectNeutral(today.stdout)
        #expect(today.stdout.contains("␛]0;owned␇Plan␛[2J"))
        #expect(today.stdout.contains("␛[2K␛[1AApple\u{FFFD} \u{FFFD}raw"))
        let show = try await caresync.run("plan", "show")
        expectNeutral(show.stdout)
        #expect(show.stdout.contains("\"␛[2K␛[1AApple\u{FFFD} \u{FFFD}raw\""))
    }

    @Test func contactNamesAreNeutralizedToo() async throws {
        #expect(try await caresync.run("contacts", "add", "dr", "--given", "\u{1B}[2KRuiz").status == 0)
        let list = try await caresync.run("contacts")
        expectNeutral(list.stdout)
        #expect(list.stdout.contains("␛[2KRuiz"))
    }

    /// JSON is left to its encoder: the texts read back as they were given.
    @Test func jsonKeepsTheTextsAsTheyAre() async throws {
        let shown = try await caresync.run("plan", "show", "--json")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(plan["title"] as? String == Self.title)
        let activity = try #require((plan["activities"] as? [[String: Any]])?.first)
        #expect(activity["title"] as? String == Self.activity)
        #expect(shown.stdout.contains("\\u001b[2K"))
    }
}
