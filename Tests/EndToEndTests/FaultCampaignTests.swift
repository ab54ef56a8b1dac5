import Foundation
import Testing

/// Short runs of the fault campaigns in `scripts/campaign-*` (the closing notes give long
/// ones), each with a random seed: every rule holds, and the faults really happened.
struct FaultCampaignTests {
    /// Runs `scripts/NAME ARGUMENTS… --json --bin BUILD` and decodes its figures.
    func campaign<Figures: Decodable>(_ name: String, _ arguments: [String], as: Figures.Type) throws -> Figures {
        let script = CareSyncCommand.repository.appendingPathComponent("scripts/\(name)")
        let result = try CareSyncCommand.run(executable: script, arguments + ["--json", "--bin", CareSyncCommand.binDirectory.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return try JSONDecoder().decode(Figures.self, from: Data(try #require(result.lines.last).utf8))
    }

    var seed: String { String(Int.random(in: 1...1_000_000)) }

    struct FirstStart: Decodable {
        var rounds, killed, restartsFailed, broken, watcherScans: Int
    }

    /// First starts killed at random points: nothing readable by others, no temporary key,
    /// and the next start works.
    @Test func aKilledFirstStartLeavesNothingExposedAndStartsAgain() throws {
        let figures = try campaign("campaign-first-start", ["--kills", "25", "--seed", seed], as: FirstStart.self)
        #expect(figures.rounds == 25)
        #expect(figures.killed > 0)
        #expect(figures.watcherScans > figures.rounds)
        #expect(figures.restartsFailed == 0)
        #expect(figures.broken == 0)
    }

    struct Partition: Decodable {
        var rounds, faultsHit, completionsSent, acknowledged, lost, duplicated, acknowledgedTwice, notConverged, broken: Int
    }

    /// Connections cut, held and refused at random points: the watches converge on the
    /// primary's state and every acknowledged completion is in the store once.
    @Test func partitionsLoseAndDuplicateNothing() throws {
        let figures = try campaign("campaign-partition", ["--seeds", "12", "--seed", seed], as: Partition.self)
        #expect(figures.rounds == 12)
        #expect(figures.faultsHit > 0)
        #expect(figures.acknowledged == figures.completionsSent)
        #expect(figures.lost == 0 && figures.duplicated == 0 && figures.acknowledgedTwice == 0 && figures.notConverged == 0)
        #expect(figures.broken == 0)
    }
}
