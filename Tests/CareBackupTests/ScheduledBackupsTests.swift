@testable import CareBackup
import Foundation
import Synchronization
import TestSupport
import Testing

/// The primary's own backups on a clock the test moves: one at once, then one a day, the
/// oldest beyond the number kept removed; a restart keeps the rhythm; a failure is reported
/// and tried again.
struct ScheduledBackupsTests {
    let fixture = try! BackupTests()
    let clock = ManualClock()
    let day: TimeInterval = 86_400

    /// Runs a schedule of one backup a day into `directory`, keeping `keep`.
    func schedule(into directory: String, keep: Int = 2) async throws -> (Task<Void, Never>, Outcomes) {
        let (store, identity) = try await fixture.primary()
        let outcomes = Outcomes()
        let schedule = ScheduledBackups(
            store: store, directory: directory, every: .seconds(day), keep: keep, passphrase: fixture.passphrase,
            identityDirectory: identity, clock: clock
        ) { event in outcomes.events.withLock { $0.append(event) } }
        return (Task { await schedule.run() }, outcomes)
    }

    func backups(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".csb") }.sorted()
    }

    @Test func oneAtOnceThenOneADayAndTheOldestGo() async throws {
        let directory = fixture.directory + "/backups"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (task, outcomes) = try await schedule(into: directory)
        defer { task.cancel() }
        try await waitFor("the first backup", seen: { "\(outcomes.summary)" }) { outcomes.made == 1 }
        await clock.sleeping()
        #expect(outcomes.made == 1, "nothing more until a day has passed")
        for count in 2...3 {
            clock.advance(by: day)
            try await waitFor("backup \(count)", seen: { "\(outcomes.summary)" }) { outcomes.made == count }
        }
        let kept = try backups(in: directory)
        #expect(kept == [ScheduledBackups.name(at: clock.now.addingTimeInterval(-day)), ScheduledBackups.name(at: clock.now)])
        let manifest = try StoreBackup.inspect(directory + "/" + kept[1], passphrase: fixture.passphrase)
        #expect(manifest.withIdentity && manifest.store.outcomes == 1)
        #expect(ScheduledBackups.date(ofName: kept[1]) == Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down)))
    }

    @Test func aRestartWaitsForTheNextDueBackup() async throws {
        let directory = fixture.directory + "/backups"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let earlier = directory + "/" + ScheduledBackups.name(at: clock.now.addingTimeInterval(-day / 2))
        try Data("an earlier backup".utf8).write(to: URL(fileURLWithPath: earlier))
        let (task, outcomes) = try await schedule(into: directory)
        defer { task.cancel() }
        await clock.sleeping()
        #expect(outcomes.made == 0, "the last one was half a day ago")
        clock.advance(by: day / 2)
        try await waitFor("the backup due a day after the last", seen: { "\(outcomes.summary)" }) { outcomes.made == 1 }
    }

    @Test func aFailedBackupIsReportedAndTriedAgain() async throws {
        let directory = fixture.directory + "/not-a-directory"
        try Data().write(to: URL(fileURLWithPath: directory))
        let (task, outcomes) = try await schedule(into: directory)
        defer { task.cancel() }
        try await waitFor("a failure", seen: { "\(outcomes.summary)" }) { outcomes.failed == 1 }
        clock.advance(by: 60)
        try await waitFor("a second try", seen: { "\(outcomes.summary)" }) { outcomes.failed == 2 }
        guard case .failed(_, let cause, let retryIn) = outcomes.events.withLock({ $0.last }) else { Issue.record("no failure"); return }
        #expect(retryIn == .seconds(120), "the backoff grows")
        #expect(cause == .folderMissing, "a file where the folder should be")
    }
}

/// What a schedule reported.
final class Outcomes: Sendable {
    let events = Mutex<[ScheduledBackups.Event]>([])

    var made: Int { events.withLock { $0.count { if case .made = $0 { true } else { false } } } }
    var failed: Int { events.withLock { $0.count { if case .failed = $0 { true } else { false } } } }
    var summary: String { "\(made) made, \(failed) failed" }
}
