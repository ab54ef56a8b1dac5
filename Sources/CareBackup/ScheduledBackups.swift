import CarePlan
import CarePlanStore
import Foundation
import Metrics
import Clocks
import Waiting

/// The backups a primary makes by itself: one every ``every`` into ``directory``, sealed
/// under the passphrase, the identity included, the newest ``keep`` kept. The first is due
/// ``every`` after the newest backup already there (at once without one), so a restart
/// neither skips nor doubles one. A failed backup is reported and tried again after a
/// backoff that grows to ``every``. Each outcome counts in `caresync_backups_total`
/// (`result`: `made` or `failed`), and the last backup's time is
/// `caresync_backup_last_made_seconds`.
public struct ScheduledBackups: Sendable {
    /// What a round did.
    public enum Event: Sendable {
        case made(path: String, manifest: BackupManifest)
        /// The system's reason, the cause a person acts on, and when the round is tried again.
        case failed(reason: String, cause: BackupFailureCause, retryIn: Duration)
    }

    public let store: CarePlanStore
    public let directory: String
    public let every: Duration
    public let keep: Int
    let passphrase: BackupPassphrase
    public let identityDirectory: String?
    /// What the schedule waits on, and what names and dates the backups.
    public let clock: any WallClock
    public let report: @Sendable (Event) -> Void

    public init(
        store: CarePlanStore, directory: String, every: Duration, keep: Int, passphrase: BackupPassphrase, identityDirectory: String?,
        clock: any WallClock = .system, report: @escaping @Sendable (Event) -> Void
    ) {
        self.store = store
        self.directory = directory
        self.every = every
        self.keep = max(1, keep)
        self.passphrase = passphrase
        self.identityDirectory = identityDirectory
        self.clock = clock
        self.report = report
    }

    /// Backs up round after round until cancelled.
    public func run() async {
        var failures = 0
        while !Task.isCancelled {
            let due = newest().map { $0.addingTimeInterval(every.inSeconds) } ?? clock.now
            if due > clock.now {
                do { try await clock.sleep(.seconds(due.timeIntervalSince(clock.now))) } catch { return }
                continue
            }
            do {
                let (path, manifest) = try await backUp()
                failures = 0
                Counter(label: "caresync_backups_total", dimensions: [("result", "made")]).increment()
                Gauge(label: "caresync_backup_last_made_seconds").record(manifest.createdAt.timeIntervalSince1970)
                report(.made(path: path, manifest: manifest))
            } catch {
                failures += 1
                Counter(label: "caresync_backups_total", dimensions: [("result", "failed")]).increment()
                let wait = Backoff(first: .seconds(60), maximum: every).delay(attempt: failures - 1, random: 0)
                report(.failed(reason: "\(error)", cause: BackupFailureCause(of: error), retryIn: wait))
                do { try await clock.sleep(wait) } catch { return }
            }
        }
    }

    /// One backup, named by its time, then the oldest beyond ``keep`` removed.
    func backUp() async throws -> (String, BackupManifest) {
        let now = clock.now
        let backup = try await StoreBackup.make(of: store, identityDirectory: identityDirectory, now: now)
        let path = directory + "/" + Self.name(at: backup.manifest.createdAt)
        try backup.write(to: path, passphrase: passphrase)
        for (_, name) in backups().dropLast(keep) { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        return (path, backup.manifest)
    }

    /// The backups in the directory, oldest first, with the times their names give.
    func backups() -> [(Date, String)] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { name in
            Self.date(ofName: name).map { ($0, name) }
        }.sorted { $0.0 < $1.0 }
    }

    private func newest() -> Date? { backups().last?.0 }

    /// `caresync-20261129T162300Z.csb`: sorts by time, says it in UTC.
    static func name(at date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "caresync-%04d%02d%02dT%02d%02d%02dZ.csb", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// The time a backup's name gives; `nil` for any other file.
    static func date(ofName name: String) -> Date? {
        let stamp = Array(name.utf8)
        guard name.hasPrefix("caresync-"), name.hasSuffix("Z.csb"), stamp.count == 29, stamp[17] == UInt8(ascii: "T") else { return nil }
        let number = { (from: Int, length: Int) in Int(String(decoding: stamp[from..<(from + length)], as: UTF8.self)) }
        guard let year = number(9, 4), let month = number(13, 2), let day = number(15, 2), let hour = number(18, 2),
              let minute = number(20, 2), let second = number(22, 2)
        else { return nil }
        return utc.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()
}
