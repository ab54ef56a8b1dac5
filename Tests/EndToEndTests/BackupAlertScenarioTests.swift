import Foundation
import Testing

/// A scheduled backup that fails is not silence: the care app says so on every page, shown in
/// Chromium and looked at, and the household device hears it; both hear when one works again.
struct BackupAlertScenarioTests {
    let scratch = Scratch()
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    @Test func aFailedBackupIsAnAlertInTheCareAppAndTheHousehold() async throws {
        let caresync = try await exampleStore(in: scratch)
        let passphrase = scratch.path("passphrase")
        try "the household's backup passphrase\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
        let backups = scratch.path("backups")
        let web = try await WebAppTests.WebPrimary(
            store: caresync.store, clockStart: "\(today)T08:00:30Z",
            extra: ["--backup-dir", backups, "--backup-every", "1h", "--backup-passphrase-file", passphrase])
        defer { web.primary.terminate() }
        let isBackup: @Sendable (String) -> Bool = { $0.contains("\"event\":\"backup\"") }
        #expect(await web.primary.process.waitForLine(where: isBackup) != nil, "one at once")
        let household = try await WatchProcess(
            endpoint: web.primary.endpoint, stateDir: scratch.path("household"), store: caresync.store, role: "household", simulator: "household-sim")
        defer { household.terminate() }
        try await household.waitFor("backup") { $0["status"] as? String == "working" && $0["lastMade"] is String }

        // The directory becomes a file: the next backup, an hour on, fails.
        try FileManager.default.removeItem(atPath: backups)
        try Data().write(to: URL(fileURLWithPath: backups))
        try await web.primary.advanceClock(by: 3600)
        #expect(await web.primary.process.waitForLine { $0.contains("\"event\":\"backup-failed\"") } != nil)
        let failing = try await household.waitFor("backup") { $0["status"] as? String == "failing" }.last!
        #expect((failing["reason"] as? String)?.isEmpty == false && failing["lastMade"] is String, "\(failing)")

        let alertBackground = "#fdf0f0"
        // Looked at as people see it: a phone's size and a desktop's, in English and German.
        let sentence = ["en": "The care record's backups have failed since", "de": "Die Sicherungen der Pflegedaten schlagen seit"]
        let cause = ["en": "the backup folder does not exist", "de": "den Sicherungsordner gibt es nicht"]
        for size in PageRenderTests.sizes {
            let code = try #require(WatchProcess.object(try await caresync.run("pair", "--role", "browser", "--json").stdout)?["code"] as? String)
            let browser = try await WebDriver(width: size.width, height: size.height)
            do {
                try await WebAppTests.signIn(browser, at: web.url, code: code)
                for language in ["en", "de"] {
                    try await browser.open(web.url + "?lang=\(language)")
                    _ = try await browser.wait(for: "html[lang='\(language)'] #backup-alert")
                    let alert = try await browser.text("#backup-alert") ?? ""
                    #expect(alert.hasPrefix(sentence[language]!), "\(size.name) \(language)")
                    // The cause in the page's language, not the system's "Not a directory" (issue 53, item 9).
                    #expect(alert.contains(cause[language]!) && !alert.contains("directory"), "\(alert)")
                    let wide = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth") as? Bool
                    #expect(wide == true, "nothing wider than the window (\(size.name), \(language))")
                    let png = try await browser.screenshot()
                    try WebAppTests.save(png, as: "backup-alert-\(size.name)-\(language)")
                    #expect(try await browser.pixelCounts(of: png, colors: [alertBackground])[alertBackground] ?? 0 > 20_000, "\(size.name) \(language)")
                }
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
        try await WebAppTests.withBrowser { browser in
            try await WebAppTests.signIn(browser, at: web.url, code: web.signInCode)
            _ = try await browser.wait(for: "#backup-alert")
            #expect(try await browser.text("#backup-alert")?.contains("The care record's backups have failed since") == true)
            let alerted = try await browser.screenshot()
            try WebAppTests.save(alerted, as: "backup-alert")
            let shown = try await browser.pixelCounts(of: alerted, colors: [alertBackground])[alertBackground] ?? 0

            // A directory again: the retry a minute on works, and the alert is gone everywhere.
            let working = household.messages("backup").count { $0["status"] as? String == "working" }
            try FileManager.default.removeItem(atPath: backups)
            try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
            try await web.primary.advanceClock(by: 60)
            _ = try await household.waitFor("backup", count: working + 1) { $0["status"] as? String == "working" }
            try await browser.open(web.url)
            _ = try await browser.wait(for: "ol.week")
            #expect(try await browser.execute("return !!document.querySelector('#backup-alert')") as? Bool == false)
            let calm = try await browser.screenshot()
            // Seen: the band of the alert's colour across the top of the page, then gone (the
            // care card's missed dose keeps a little of that colour).
            let gone = try await browser.pixelCounts(of: calm, colors: [alertBackground])[alertBackground] ?? 0
            #expect(shown - gone > 20_000, "\(shown) pixels of the alert's colour with it, \(gone) without")
        }
    }
}
