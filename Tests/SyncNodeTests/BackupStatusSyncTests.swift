import CareBackup
import CarePlan
import Foundation
@testable import SyncNode
import SyncProtocol
import Testing

/// A primary that makes backups tells household devices that ask how they stand: at once,
/// and again when it changes; watches are never told.
struct BackupStatusSyncTests {
    let scratch = Scratch()

    func nextStatus(_ node: CompanionNode) async -> BackupHealth.Status? {
        await node.firstEvent(within: patience) { if case .backupStatus(let status) = $0 { status } else { nil } }
    }

    /// The vector of section 24 reads as the trouble it describes, and is what the status sends.
    @Test func theBackupStatusVectorReadsAsFailing() throws {
        let wire = try protocolVector("backup-status").backupStatus
        let status = BackupHealth.Status(wire: wire)
        let since = Date(timeIntervalSince1970: 1_795_510_800)
        #expect(status == .failing(BackupHealth.Trouble(
            since: since, reason: "the disk is full", cause: .other, retryAt: since.addingTimeInterval(120), lastMade: since.addingTimeInterval(-86_400))))
        #expect(status.wire == wire)
    }

    @Test func householdDevicesHearWhenBackupsFailAndWhenTheyWorkAgain() async throws {
        let health = BackupHealth()
        let primary = try await TestPrimary(configure: { $0.backupHealth = health })
        let directory = scratch.path("household")
        var configuration = CompanionConfiguration(role: .household, name: "Hall", stateDirectory: directory, endpoint: primary.endpoint)
        configuration.alerts = true
        configuration.deadlineClock = ManualClock()
        let household = try await CompanionNode(configuration: configuration)
        _ = try await household.pair(code: try primary.openCode(.household))
        let watch = try await primary.pairedCompanion(.watch)
        let running = [Task { await household.run() }, Task { await watch.run() }]

        #expect(await nextStatus(household) == .working(lastMade: nil))
        let now = Date(timeIntervalSince1970: 1_795_500_000)
        health.record(.failed(reason: "the disk is full", cause: .diskFull, retryIn: .seconds(60)), at: now)
        let failing = await nextStatus(household)
        #expect(failing?.trouble?.reason == "the disk is full" && failing?.trouble?.since == now)
        #expect(failing?.trouble?.retryAt == now.addingTimeInterval(60) && failing?.trouble?.lastMade == nil)
        health.made(at: now.addingTimeInterval(60))
        #expect(await nextStatus(household) == .working(lastMade: now.addingTimeInterval(60)))

        #expect(await firstContext(watch) != nil)
        await household.stop()
        await watch.stop()
        for task in running { await task.value }
        var heard: [CompanionEvent] = []
        for await event in watch.events { heard.append(event) }
        #expect(!heard.contains { if case .backupStatus = $0 { true } else { false } }, "a watch is never told")
        await primary.stop()
    }
}
