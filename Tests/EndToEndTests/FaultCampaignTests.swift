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

    struct PowerCut: Decodable {
        struct Total: Decodable { var total: Int }
        struct PerCut: Decodable { var droppedBytes, droppedShmBytes: Total }
        struct SelfTest: Decodable {
            var droppedBytes: Int
            var syncedFileKept, unsyncedFileDropped, unsyncedAppendDropped, unsyncedRenameUndone: Bool
            var posixLockHeldAcrossProcesses, sharedMappingCoherent: Bool
            var sqliteRowsAfterCut: [String: Int]
        }
        var cuts, processesKilled, completionsSent, acknowledged, lost, duplicated, duplicatedInWholeHistory: Int
        var primaryRestartsFailed, notDrained, quickChecksFailed, broken: Int
        var shmMapped: Bool
        var perCut: PerCut
        var selfTest: SelfTest
    }

    /// Whether FUSE mounts here: `campaign-power-cut --probe` exits 3 only when it cannot (no
    /// /dev/fuse, no permission); any other failure runs the test, which then fails.
    static let fuseMounts: Bool = {
        let script = CareSyncCommand.repository.appendingPathComponent("scripts/campaign-power-cut")
        return (try? CareSyncCommand.run(executable: script, ["--probe"]))?.status != 3
    }()

    /// Power cuts under a completion storm, on a FUSE filesystem that drops every write not
    /// fsynced: the store opens again, and every acknowledged completion is in it once.
    @Test(.enabled(if: fuseMounts, "FUSE cannot be mounted on this machine (scripts/campaign-power-cut --probe)"))
    func powerCutsLoseAndDuplicateNothingAcknowledged() throws {
        let figures = try campaign("campaign-power-cut", ["--cuts", "5", "--seed", seed], as: PowerCut.self)
        // The filesystem really drops what was not synced, and keeps what was.
        #expect(figures.selfTest.syncedFileKept && figures.selfTest.unsyncedFileDropped)
        #expect(figures.selfTest.unsyncedAppendDropped && figures.selfTest.unsyncedRenameUndone)
        #expect(figures.selfTest.sqliteRowsAfterCut == ["OFF": 0, "FULL": 100])
        #expect(figures.selfTest.droppedBytes > 0)
        #expect(figures.selfTest.posixLockHeldAcrossProcesses && figures.selfTest.sharedMappingCoherent)
        #expect(figures.shmMapped)
        // The cuts happened, hit the store's processes and dropped unsynced data.
        #expect(figures.cuts == 5)
        #expect(figures.processesKilled >= 10)
        #expect(figures.perCut.droppedBytes.total + figures.perCut.droppedShmBytes.total > 0)
        #expect(figures.acknowledged > 0 && figures.completionsSent >= figures.acknowledged)
        #expect(figures.lost == 0 && figures.duplicated == 0 && figures.duplicatedInWholeHistory == 0)
        #expect(figures.primaryRestartsFailed == 0 && figures.notDrained == 0 && figures.quickChecksFailed == 0)
        #expect(figures.broken == 0)
    }
}
