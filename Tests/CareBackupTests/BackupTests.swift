@testable import CareBackup
import CarePlan
import CarePlanStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// A backup made of a store, sealed, inspected and restored elsewhere; and each way a backup
/// is refused (a wrong passphrase, a truncated, altered or newer file), with nothing written.
struct BackupTests {
    let scratch = Scratch()
    var directory: String { scratch.path("backup-test") }
    let passphrase = try! BackupPassphrase("correct horse battery staple")
    /// A cheap scrypt, for the tests that are not about its cost.
    let cheap = BackupFile.Cost(logN: 10, r: 8, p: 1)

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The pairing code `primary()` leaves open, when it expires, and the care app's session it
    /// was made from (the one it is shown to).
    static let pairingCode = (code: "K7P2M9QX", expiresAt: Date(timeIntervalSince1970: 1_795_003_600), session: "backup-test-session")
    /// The handle `primary()`'s open code was given.
    let openCodeHandle = Handle()
    final class Handle: Sendable {
        let value = Mutex("")
    }

    /// A store with a plan, an activity, an outcome and an open pairing code, and an identity
    /// directory beside it.
    func primary() async throws -> (store: CarePlanStore, identity: String) {
        let store = try await CarePlanStore(path: directory + "/store.sqlite")
        let day = CalendarDay("2026-11-23")!
        try await store.core.plan.configure(title: "Backed up", timeZone: TimeZone(identifier: "Europe/Vienna")!, device: "setup")
        try await store.core.plan.addActivity(
            Activity(identifier: "walk", kind: .intervention, title: "Walk", schedule: .daily(times: [TimeOfDay("08:00")!], start: day)),
            effectiveFrom: day, device: "setup")
        let outcome = Outcome(state: .completed, values: [], recordedAt: Date(timeIntervalSince1970: 1_795_000_000), device: "watch")
        _ = try await store.record(outcome, for: EventKey(activityID: "walk", day: day, occurrence: 0))
        let handle = try await store.core.access.openPairingCode(
            Self.pairingCode.code, role: .watch, mayRecord: true, shownTo: Self.pairingCode.session, expiresAt: Self.pairingCode.expiresAt)
        openCodeHandle.value.withLock { $0 = handle }
        let identity = directory + "/store.sqlite.identity"
        try FileManager.default.createDirectory(atPath: identity, withIntermediateDirectories: true)
        for (name, text) in [("identity.pem", "KEY"), ("health-record.sealed", "SEALED"), ("health-record.lock", ""), ("health-record.pending", "P")] {
            try text.write(toFile: identity + "/" + name, atomically: true, encoding: .utf8)
        }
        return (store, identity)
    }

    /// A backup file of `primary()`, with its identity.
    func backupFile(cost: BackupFile.Cost? = nil) async throws -> String {
        let (store, identity) = try await primary()
        let file = directory + "/backup.csb"
        try await StoreBackup.make(of: store, identityDirectory: identity, now: Date(timeIntervalSince1970: 1_795_000_000))
            .write(to: file, passphrase: passphrase, cost: cost ?? cheap)
        return file
    }

    @Test func aBackupRestoresElsewhereWithItsIdentityAndFigures() async throws {
        let file = try await backupFile(cost: BackupFile.Cost())  // the real cost, once
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let bytes = try #require(FileManager.default.contents(atPath: file))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("Backed up"), "sealed: no plan title in the clear")

        let manifest = try StoreBackup.inspect(file, passphrase: passphrase)
        #expect(manifest.store.title == "Backed up" && manifest.store.activities == 1 && manifest.store.outcomes == 1)
        #expect(manifest.withIdentity)
        #expect(manifest.files.map(\.name) == ["store.sqlite", "identity/health-record.sealed", "identity/identity.pem"], "no lock, no launch")

        let elsewhere = directory + "/new/store.sqlite"
        try FileManager.default.createDirectory(atPath: directory + "/new", withIntermediateDirectories: true)
        try await StoreRestore.restore(file, passphrase: passphrase, storePath: elsewhere, identityDirectory: elsewhere + ".identity", replace: false)
        let restored = try await CarePlanStore(path: elsewhere)
        #expect(try await restored.summary() == manifest.store)
        #expect(try await restored.outcomes.event(EventKey(activityID: "walk", day: CalendarDay("2026-11-23")!, occurrence: 0)).outcome?.state == .completed)
        let code = try await restored.devices.openCode(
            openCodeHandle.value.withLock { $0 }, shownTo: Self.pairingCode.session, at: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(code.map { [$0.code, $0.role, "\($0.mayRecord)", "\($0.expiresAt)"] }
            == [Self.pairingCode.code, "watch", "true", "\(Self.pairingCode.expiresAt)"], "the pairing code is open again")
        #expect(try String(contentsOfFile: elsewhere + ".identity/identity.pem", encoding: .utf8) == "KEY")
        let identityMode = try FileManager.default.attributesOfItem(atPath: elsewhere + ".identity/identity.pem")[.posixPermissions] as? Int
        #expect(identityMode == 0o600)
    }

    @Test func aStoreIsReplacedOnlyWhenAskedAndItsOldLogGoes() async throws {
        let file = try await backupFile()
        let target = directory + "/store.sqlite"
        await #expect(throws: BackupError.storeExists(path: target)) {
            try await StoreRestore.restore(file, passphrase: passphrase, storePath: target, identityDirectory: target + ".identity", replace: false)
        }
        try await retitle(target)  // a change the backup does not have
        try await StoreRestore.restore(file, passphrase: passphrase, storePath: target, identityDirectory: target + ".identity", replace: true)
        #expect(try await CarePlanStore(path: target).plan.info().title == "Backed up")
    }

    /// The store at `path` given another title; closed on return, as a stopped primary's is.
    func retitle(_ path: String) async throws {
        try await CarePlanStore(path: path).core.plan.configure(title: "Changed after the backup", timeZone: .gmt, device: "cli")
    }

    /// Each refusal, and the destination left as it was: no store, no identity.
    @Test(arguments: ["wrong passphrase", "truncated", "flipped byte", "newer format", "not a backup", "trailing bytes"])
    func aBadBackupIsRefusedWithItsReasonAndWritesNothing(_ fault: String) async throws {
        let file = try await backupFile()
        var bytes = try #require(FileManager.default.contents(atPath: file)).map { $0 }
        var key = passphrase
        switch fault {
        case "wrong passphrase": key = try BackupPassphrase("another passphrase")
        case "truncated": bytes.removeLast(100)
        case "flipped byte": bytes[bytes.count - 40] ^= 0x01
        case "newer format": bytes[9] = 2
        case "not a backup": bytes = Array("SQLite format 3\0".utf8) + bytes
        default: bytes += [0]
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let target = directory + "/restored/store.sqlite"
        try FileManager.default.createDirectory(atPath: directory + "/restored", withIntermediateDirectories: true)
        await #expect {
            try await StoreRestore.restore(file, passphrase: key, storePath: target, identityDirectory: target + ".identity", replace: false)
        } throws: { error in
            let said = "\(error)"
            return switch fault {
            case "wrong passphrase": error as? BackupError == .wrongPassphrase(path: file)
            case "truncated": said.contains("is truncated")
            case "flipped byte": said.contains("altered or damaged") && said.contains("does not authenticate")
            case "newer format": error as? BackupError == .newerFormat(path: file, format: 2, supported: 1)
            case "not a backup": error as? BackupError == .notABackup(path: file)
            default: said.contains("bytes after its end")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/restored").isEmpty, "nothing written")
    }

    @Test func thePassphraseComesFromAFileOrTheEnvironmentAndIsLongEnough() throws {
        let file = directory + "/passphrase"
        try "from the file\nsecond line\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try BackupPassphrase.read(file: file).bytes == Array("from the file".utf8))
        #expect(try BackupPassphrase.read(file: nil, environment: ["CARESYNC_BACKUP_PASSPHRASE": "from the environment"]).bytes
            == Array("from the environment".utf8))
        #expect(throws: BackupError.self) { try BackupPassphrase.read(file: nil, environment: [:]) }
        #expect(throws: BackupError.self) { try BackupPassphrase("short") }
    }
}
