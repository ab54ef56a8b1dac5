import CareBackup
import CarePlan
@testable import CareWeb
import Foundation
import Testing

/// While the scheduled backups fail, every page of a signed-in person says so first, in
/// their language; not before, not after one works again, and not to a stranger.
struct BackupAlertTests {
    @Test func everyPageSaysWhileBackupsFail() async throws {
        let health = BackupHealth()
        let web = try await WebFixture { $0.backupHealth = health }
        try await web.signIn()
        #expect(!(try await web.request(.GET, "/").body.contains("backup-alert")))

        let since = Date(timeIntervalSince1970: 1_795_510_800)  // 2026-11-24 09:00 UTC, the plan's zone
        // The system's own words, as a failed write gives them: for the log, not for a page.
        let system = "cannot create /backups/.tmp: No space left on device"
        health.record(.failed(reason: system, cause: .diskFull, retryIn: .seconds(120)), at: since)
        for path in ["/", "/symptoms", "/devices"] {
            let page = try await web.request(.GET, path).body
            #expect(page.contains(#"<p id="backup-alert" class="notice error banner" role="alert">"#), "\(path)")
            #expect(page.contains("have failed since 24 November 2026 at 09:00: the disk is full. CareSync tries again at 24 November 2026 at 09:02. The newest backup: none yet."), "\(path)")
        }
        // Issue 53, item 9: the cause in German, not the system's English; "am" and "um" where German says them.
        let german = try await web.request(.GET, "/", headers: [("Accept-Language", "de")]).body
        #expect(german.contains("Die Sicherungen der Pflegedaten schlagen seit dem 24. November 2026 um 09:00 fehl: der Speicher ist voll. CareSync versucht es am 24. November 2026 um 09:02 erneut."))
        #expect(!german.contains("No space") && !german.contains("/backups"))
        for cause in BackupFailureCause.allCases {
            health.record(.failed(reason: system, cause: cause, retryIn: .seconds(120)), at: since)
            let page = try await web.request(.GET, "/", headers: [("Accept-Language", "de")]).body
            #expect(!page.contains("No space") && !page.contains("backups.causes"), "\(cause) in German")
        }
        #expect(!(try await web.request(.GET, "/sign-in", withCookies: false).body.contains("backup-alert")), "not to a stranger")

        health.made(at: since.addingTimeInterval(120))
        #expect(!(try await web.request(.GET, "/").body.contains("backup-alert")))
        try await web.stop()
    }
}
