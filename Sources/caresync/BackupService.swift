import CareBackup
import CarePlan
import CarePlanStore
import Foundation
import LineOutput
import Logging
import PrivateFiles
import ServiceLifecycle
import Clocks

extension PrimaryCommand {
    /// `--backup-dir`: the primary's scheduled backups, each one a line in the log and an event,
    /// and noted in `health` (which the care app and household devices show).
    func backupService(
        store: CarePlanStore, directory: String, clock: any WallClock, health: BackupHealth, logger: Logger
    ) throws -> some Service {
        let passphrase = try BackupPassphrase.read(file: backupPassphraseFile)
        try PrivateFiles.makeDirectory(directory, own: false)
        let json = json
        return BackupService(backups: ScheduledBackups(
            store: store, directory: directory, every: .seconds(seconds(of: backupEvery) ?? 86_400), keep: backupKeep,
            passphrase: passphrase, identityDirectory: identityDirectory(of: store), clock: clock
        ) { event in
            health.record(event, at: clock.now)
            switch event {
            case .made(let path, let manifest):
                logger.notice("backed up the store", metadata: ["file": "\(path)", "revision": "\(manifest.store.revision)"])
                json ? emitJSON(["event": "backup", "file": .string(path), "revision": .int(manifest.store.revision)])
                    : emit("Backed up to \(path) (revision \(manifest.store.revision))")
            case .failed(let reason, _, let retryIn):
                logger.error("the scheduled backup failed", metadata: ["reason": "\(reason)", "retryIn": "\(retryIn)"])
                json ? emitJSON(["event": "backup-failed", "reason": .string(reason), "retryInSeconds": .double(retryIn.inSeconds)])
                    : emit("The backup failed: \(reason); trying again in \(retryIn)")
            }
        })
    }
}

/// ``ScheduledBackups`` while the primary serves.
struct BackupService: Service {
    let backups: ScheduledBackups

    func run() async throws {
        await cancelWhenGracefulShutdown { await backups.run() }
    }
}
