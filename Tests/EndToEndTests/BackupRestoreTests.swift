import Foundation
import Testing

/// A running primary backed up, then lost (SIGKILL, its store and identity deleted), then
/// restored from the backup into another directory, as on a new device: with its identity
/// the watch reconnects without pairing, the paired devices and the history are back, and
/// what the watch queued meanwhile is recorded; without it, the watch says plainly that the
/// primary changed and must be paired again.
struct BackupRestoreTests {
    let scratch = Scratch()

    /// A primary with a paired watch that has one completion acknowledged.
    func running() async throws -> (CareSyncCommand, PrimaryProcess, WatchProcess, passphrase: String) {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("context")
        watch.send("complete golden-apple 0")
        #expect(try await watch.waitFor("reply").first?["status"] as? String == "accepted")
        let passphrase = scratch.path("passphrase")
        try "a passphrase for the test\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
        return (caresync, primary, watch, passphrase)
    }

    /// The primary killed and its store and identity deleted, as when the tablet is reset;
    /// then the backup restored as a new store, which a primary serves on the same port.
    func lose(_ primary: PrimaryProcess, _ caresync: CareSyncCommand, restoring backup: String, passphrase: String) async throws -> (CareSyncCommand, PrimaryProcess) {
        await primary.stop(signal: SIGKILL)
        for suffix in ["", "-wal", "-shm", ".identity"] { try? FileManager.default.removeItem(atPath: caresync.store + suffix) }
        let restored = CareSyncCommand(store: scratch.path("new-device/store.sqlite"))
        let restore = try await restored.run("restore", backup, "--passphrase-file", passphrase)
        #expect(restore.status == 0, "\(restore.stderr)")
        return (restored, try await PrimaryProcess(store: restored.store, port: primary.port))
    }

    /// Each paired device's fingerprint, role and name, what it may do, and whether it was
    /// revoked (not when it was last seen, which its reconnection moves).
    static func pairings(_ caresync: CareSyncCommand) async throws -> [String] {
        try await caresync.run("devices", "--json").lines.compactMap(WatchProcess.object).map { device in
            ["id", "role", "name", "mayRecord", "standby", "revokedAt"].map { "\(device[$0] ?? "-")" }.joined(separator: " ")
        }
    }

    @Test func restoredWithItsIdentityThePrimaryIsTheSameToItsWatch() async throws {
        let (caresync, primary, watch, passphrase) = try await running()
        defer { watch.terminate() }
        let file = scratch.path("care.csb")
        let made = try await caresync.run("backup", "--out", file, "--with-identity", "--passphrase-file", passphrase, "--json")
        let manifest = try #require(WatchProcess.object(made.stdout), "\(made.stdout) \(made.stderr)")
        #expect(manifest["withIdentity"] as? Bool == true)
        #expect((manifest["store"] as? [String: Any])?["devices"] as? Int == 1)
        let devices = try await Self.pairings(caresync)
        #expect(devices.count == 1 && devices[0].contains(" watch "), "the watch, by fingerprint: \(devices)")

        let (restored, newPrimary) = try await lose(primary, caresync, restoring: file, passphrase: passphrase)
        defer { newPrimary.terminate() }
        // Queued while the primary was gone, judged as usual once the watch is back, unpaired never.
        watch.send("complete golden-apple 1")
        try await watch.waitForState("golden-apple", 1, "completed")
        #expect(try await Self.pairings(restored) == devices, "the same paired devices")
        let history = try await restored.run("history", "--json").lines.compactMap(WatchProcess.object)
        #expect(history.filter { $0["activity"] as? String == "golden-apple" && $0["kind"] as? String == "outcomeRecorded" }.count == 2)
        #expect(!watch.process.output.contains { $0.contains("The primary changed") })
    }

    @Test func restoredWithoutItsIdentityTheWatchIsToldThePrimaryChanged() async throws {
        let (caresync, primary, watch, passphrase) = try await running()
        defer { watch.terminate() }
        let file = scratch.path("care.csb")
        let made = try await caresync.run("backup", "--out", file, "--passphrase-file", passphrase)
        #expect(made.status == 0 && made.stdout.contains("companions must pair again"), "\(made.stdout) \(made.stderr)")
        let (_, newPrimary) = try await lose(primary, caresync, restoring: file, passphrase: passphrase)
        defer { newPrimary.terminate() }
        let refused = try await watch.waitFor("disconnected") { ($0["reason"] as? String)?.contains("The primary changed") == true }
        #expect((refused.first?["reason"] as? String)?.contains("pair again") == true)
    }

    /// The command line's refusals: one line each, exit status 1, nothing written.
    @Test func theCommandLineRefusesWithoutAPassphraseOrWithTheWrongOne() async throws {
        let caresync = try await exampleStore(in: scratch)
        let file = scratch.path("care.csb")
        let none = try await caresync.run("backup", "--out", file)
        #expect(none.status == 1 && none.stderr.contains("give --passphrase-file FILE or set CARESYNC_BACKUP_PASSPHRASE"), "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let right = scratch.path("right"), wrong = scratch.path("wrong")
        try "the right passphrase".write(toFile: right, atomically: true, encoding: .utf8)
        try "the wrong passphrase".write(toFile: wrong, atomically: true, encoding: .utf8)
        #expect(try await caresync.run("backup", "--out", file, "--passphrase-file", right).status == 0)
        let inspect = try await CareSyncCommand.run(executable: CareSyncCommand.executable, ["backup", "inspect", file, "--passphrase-file", right])
        #expect(inspect.stdout.contains("revision") && inspect.stdout.contains("Without the primary's identity"), "\(inspect.stdout)")
        let refused = try await CareSyncCommand.run(executable: CareSyncCommand.executable, ["backup", "inspect", file, "--passphrase-file", wrong])
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("does not open"))
        let elsewhere = CareSyncCommand(store: scratch.path("elsewhere/store.sqlite"))
        let restore = try await elsewhere.run("restore", file, "--passphrase-file", wrong)
        #expect(restore.status == 1 && !FileManager.default.fileExists(atPath: elsewhere.store))
        let over = try await caresync.run("restore", file, "--passphrase-file", right)
        #expect(over.status == 1 && over.stderr.contains("--replace"), "the store is there: \(over.stderr)")
    }
}
