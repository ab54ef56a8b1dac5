import CareBackup
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
        health.record(.failed(reason: "the disk is full", retryIn: .seconds(120)), at: since)
        for path in ["/", "/symptoms", "/devices"] {
            let page = try await web.request(.GET, path).body
            #expect(page.contains(#"<p id="backup-alert" class="notice error banner" role="alert">"#), "\(path)")
            #expect(page.contains("have failed since 24 November 2026 09:00: the disk is full. CareSync tries again at 24 November 2026 09:02. The newest backup: none yet."), "\(path)")
        }
        let german = try await web.request(.GET, "/", headers: [("Accept-Language", "de")]).body
        #expect(german.contains("Die Sicherungen der Pflegedaten schlagen seit 24. November 2026 09:00 fehl: the disk is full."))
        #expect(!(try await web.request(.GET, "/sign-in", withCookies: false).body.contains("backup-alert")), "not to a stranger")

        health.made(at: since.addingTimeInterval(120))
        #expect(!(try await web.request(.GET, "/").body.contains("backup-alert")))
        try await web.stop()
    }
}
