import Foundation
import Testing

/// First starts killed at random points (`scripts/campaign-first-start`, a short run; the
/// closing notes give long ones): nothing readable by others, no temporary key, and the next
/// start works.
struct FirstStartTests {
    struct Figures: Decodable {
        var rounds, killed, identityMadeBeforeKill, restartsFailed, broken, watcherScans: Int
    }

    @Test func aKilledFirstStartLeavesNothingExposedAndStartsAgain() throws {
        let script = CareSyncCommand.repository.appendingPathComponent("scripts/campaign-first-start")
        let result = try CareSyncCommand.run(
            executable: script, ["--kills", "25", "--seed", String(Int.random(in: 1...1_000_000)), "--json",
                                 "--bin", CareSyncCommand.binDirectory.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let figures = try JSONDecoder().decode(Figures.self, from: Data(try #require(result.lines.last).utf8))
        #expect(figures.rounds == 25)
        #expect(figures.killed > 0)
        #expect(figures.watcherScans > figures.rounds)
        #expect(figures.restartsFailed == 0)
        #expect(figures.broken == 0)
    }
}
