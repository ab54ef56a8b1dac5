import CareBackup
import Foundation
import Testing

/// The scheduled backups' health as the care app and household devices see it.
struct BackupHealthTests {
    let start = Date(timeIntervalSince1970: 1_795_500_000)

    @Test func failingSinceTheFirstFailureInARowUntilOneIsMade() async throws {
        let health = BackupHealth()
        var updates = health.updates().makeAsyncIterator()
        #expect(await updates.next() == .working(lastMade: nil), "the status now, first")

        health.made(at: start)
        #expect(await updates.next() == .working(lastMade: start))
        health.record(.failed(reason: "the disk is full", cause: .diskFull, retryIn: .seconds(60)), at: start.addingTimeInterval(86_400))
        let first = BackupHealth.Trouble(
            since: start.addingTimeInterval(86_400), reason: "the disk is full", cause: .diskFull, retryAt: start.addingTimeInterval(86_460), lastMade: start)
        #expect(await updates.next() == .failing(first))
        health.failed(reason: "the directory is gone", cause: .folderMissing, retryAt: start.addingTimeInterval(86_580), at: start.addingTimeInterval(86_460))
        var second = first
        second.reason = "the directory is gone"
        second.cause = .folderMissing
        second.retryAt = start.addingTimeInterval(86_580)
        #expect(await updates.next() == .failing(second), "still failing since the first failure, the newest reason")
        health.made(at: start.addingTimeInterval(86_580))
        #expect(await updates.next() == .working(lastMade: start.addingTimeInterval(86_580)))
        #expect(health.status.trouble == nil)
    }
}
