import Foundation
import Testing

/// The care app (`caresync primary --web`) in headless Chromium, against a real primary with
/// real companions: what a person does in the browser reaches the watch, what the watch does
/// appears in the open page, and the app refuses what it must.
@Suite(.serialized)
struct WebAppTests {
    let scratch = Scratch()

    /// A primary serving the example plan with the care app, and what it printed about it.
    struct WebPrimary {
        let primary: PrimaryProcess
        let url: String
        let signInCode: String

        /// A primary whose clock starts at `clockStart` if given, its app on `webPort` (a free one
        /// by default), with `extra` options.
        init(store: String, clockStart: String? = nil, webPort: Int = 0, extra: [String] = []) async throws {
            primary = try await PrimaryProcess(store: store, clockStart: clockStart, extra: ["--web", "--web-port", "\(webPort)"] + extra)
            guard let line = await primary.process.waitForLine(where: { $0.contains("\"web\"") }),
                  let web = WatchProcess.object(line), let url = web["url"] as? String, let code = web["signInCode"] as? String
            else { throw ProcessFailed(description: "the primary did not announce its care app: \(primary.process.output)") }
            self.url = url
            signInCode = code
        }
    }

    /// Where the screenshots go (the README and the care app's article show some of them from Docs/).
    static let renders = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/renders")

    static func save(_ png: Data, as name: String) throws {
        try FileManager.default.createDirectory(at: Self.renders, withIntermediateDirectories: true)
        try png.write(to: Self.renders.appendingPathComponent("web-\(name).png"))
    }

    /// Signs `browser` in with `code` on the sign-in page, as a person types it.
    static func signIn(_ browser: WebDriver, at url: String, code: String, name: String = "Test browser") async throws {
        try await browser.open(url)
        _ = try await browser.wait(for: "form[action='/sign-in']")
        try await browser.type(code.lowercased(), into: "#code")
        try await browser.type(name, into: "#name")
        try await browser.click("form[action='/sign-in'] button")
        _ = try await browser.wait(for: "ol.week")
    }

    /// Runs `body` with a new headless browser, which is closed afterwards whatever happens.
    static func withBrowser(javascript: Bool = true, _ body: (WebDriver) async throws -> Void) async throws {
        let browser = try await WebDriver(javascript: javascript)
        do {
            try await body(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    @Test func aCompletionInTheBrowserReachesTheWatchAndTheWatchsAppearsLive() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store)
        let watch = try await WatchProcess(endpoint: web.primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        let context = try await watch.waitFor("context").last!
        let today = try #require(WatchProcess.event(in: context, "golden-apple", 0)?["day"] as? String, "\(context)")
        try await Self.withBrowser { browser in

            // Signing in: the code as the primary printed it (typed in lower case), then the care card.
            try await browser.open(web.url)
            _ = try await browser.wait(for: "#code")
            #expect(try await browser.url.hasSuffix("/sign-in"))
            try Self.save(try await browser.screenshot(), as: "sign-in")
            try await Self.signIn(browser, at: web.url, code: web.signInCode)
            #expect(try await browser.title == "Care card · CareSync")
            let first = "li[data-event='golden-apple@\(today)#0']"
            // Not done yet: still to come, or missed by the real clock's hour.
            #expect(try await browser.element(first + ":not(.state-completed) button") != nil)
            let before = try await browser.screenshot()

            // A click records it through the store; the watch receives it in its next context.
            try await browser.click(first + " button")
            _ = try await browser.wait(for: first + ".state-completed")
            try await watch.waitForState("golden-apple", 0, "completed")
            let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
            #expect((history.last?["device"] as? String)?.hasPrefix("browser:") == true, "\(history.last ?? [:])")

            // The watch completes another: the open page shows it without a reload.
            let second = "li[data-event='golden-apple@\(today)#1']"
            #expect(try await browser.element(second + ":not(.state-completed)") != nil)
            try await browser.execute("window.sameDocument = true")
            #expect(try await browser.execute("return document.documentElement.dataset.live") as? String == "following")
            watch.send("complete golden-apple 1")
            _ = try await browser.wait(for: second + ".state-completed")
            #expect(try await browser.execute("return window.sameDocument === true && Number(document.body.dataset.updates) >= 1") as? Bool == true)
            let after = try await browser.screenshot()
            try Self.save(after, as: "care-card")

            // What the screenshots show: the done colour (the ring's arc and the done buttons)
            // grows with two occurrences done.
            let done = "#1d5e20"
            let counts = (try await browser.pixelCounts(of: before, colors: [done])[done] ?? 0,
                          try await browser.pixelCounts(of: after, colors: [done])[done] ?? 0)
            #expect(counts.1 > counts.0 + 500, "done-coloured pixels before \(counts.0), after \(counts.1)")
        }
        await web.primary.stop()
    }

    @Test func aHouseholdSessionReadsButCannotRecordAndAFormWithoutItsTokenIsRefused() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store)
        let made = try await caresync.run("pair", "--role", "browser", "--household", "--json")
        let code = try #require(WatchProcess.object(made.stdout)?["code"] as? String, "\(made.stdout) \(made.stderr)")
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: code, name: "Grandma's tablet")
            #expect(try await browser.text(".badge") == "Household: read only")
            // The states without a button to change them.
            #expect(try await browser.element("li[data-event] button") == nil)
            #expect(try await browser.element("li[data-event] span") != nil)
            try Self.save(try await browser.screenshot(), as: "household")

            // A form posted by hand (as a page on another site would, without the token) is refused.
            let status = try await browser.executeAsync("""
                const done = arguments[arguments.length - 1];
                fetch("/outcomes", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json" },
                  body: "activity=golden-apple&day=2026-11-27&occurrence=0&state=completed&message=abc" })
                  .then(async (r) => done([r.status, (await r.json()).error]));
                """) as? [Any]
            #expect(status?.first as? Int == 403 && status?.last as? String == "forged-request", "\(String(describing: status))")
            // With the token, still refused: a household session records nothing.
            let token = try #require(try await browser.execute("return document.querySelector(\"input[name=csrf]\").value") as? String)
            let refused = try await browser.executeAsync("""
                const [token, done] = arguments;
                fetch("/outcomes", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json" },
                  body: "csrf=" + token + "&activity=golden-apple&day=2026-11-27&occurrence=0&state=completed&message=abc" })
                  .then(async (r) => done([r.status, (await r.json()).error]));
                """, [token]) as? [Any]
            #expect(refused?.first as? Int == 403 && refused?.last as? String == "read-only", "\(String(describing: refused))")
            let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
            #expect(!history.contains { ($0["device"] as? String)?.hasPrefix("browser:") == true })

            // The session is listed with the devices, and revoking it there signs the browser out.
            let listed = try await caresync.run("devices")
            let line = try #require(listed.lines.first { $0.contains("\"Grandma's tablet\"") }, "\(listed.stdout)")
            #expect(line.contains("browser read-only"))
            let id = String(line.prefix { $0 != " " })
            let revoked = try await caresync.run("devices", "revoke", id)
            #expect(revoked.stdout.contains("Signed out the browser \"Grandma's tablet\""), "\(revoked.stdout)\(revoked.stderr)")
            try await browser.open(web.url)
            _ = try await browser.wait(for: "#code")
        }
        await web.primary.stop()
    }

    /// Thursday 26 November 2026, 16:00 in Vienna (the example plan's zone): pain, two blood
    /// pressures and two doses of Z-Cure are due that day.
    static let thursday = "2026-11-26T15:00:00Z"

    @Test func theSymptomTrackerAnswersAScaleAndABloodPressureAndSaysWhatIsWrong() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday)
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: web.signInCode)
            try await browser.open(web.url + "symptoms")
            let pain = "li[data-event='pain@2026-11-26#0']"
            let pressure = "li[data-event='blood-pressure@2026-11-26#0']"
            // Each control named by its label: the scale's ends carry theirs.
            #expect(try await browser.text(pain + " label[for='e-pain-0-10']") == "10 · unbearable")
            #expect(try await browser.text(pressure + " label[for='e-blood-pressure-0-0']") == "Systolic (mmHg)")
            try await browser.click(pain + " label[for='e-pain-0-7']")
            try await browser.click(pain + " button[type=submit]")
            _ = try await browser.wait(for: pain + ".state-completed .answer")
            #expect(try await browser.text(pain + " .answer") == "Recorded: 7")

            // Not a number: refused with the reason, nothing recorded.
            try await browser.type("high", into: "#e-blood-pressure-0-0")
            try await browser.type("80", into: "#e-blood-pressure-0-1")
            try await browser.click(pressure + " button[type=submit]")
            _ = try await browser.wait(for: "main .notice.error")
            #expect(try await browser.text("main .notice.error")?.contains("“high” is not a number") == true)
            try await browser.open(web.url + "symptoms")
            try await browser.type("120", into: "#e-blood-pressure-0-0")
            try await browser.type("80", into: "#e-blood-pressure-0-1")
            try await browser.click(pressure + " button[type=submit]")
            _ = try await browser.wait(for: pressure + ".state-completed")
            #expect(try await browser.text(pressure + " .answer") == "Recorded: 120 mmHg / 80 mmHg")
            try Self.save(try await browser.screenshot(), as: "symptoms")
        }
        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        let recorded = history.filter { ($0["device"] as? String)?.hasPrefix("browser:") == true }.compactMap { $0["activity"] as? String }
        #expect(recorded == ["pain", "blood-pressure"], "\(history.suffix(3))")
        await web.primary.stop()
    }

    @Test func aDoseNotTakenIsRecordedWithItsReasonAndTheAdherenceChartCountsIt() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday)
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: web.signInCode)
            try await browser.open(web.url + "medications")
            #expect(try await browser.text("#medication-z-cure h2") == "Z-Cure 50 mg")
            try await browser.click("#medication-z-cure h2 a")
            let morning = "li[data-event='z-cure@2026-11-26#0']"
            let evening = "li[data-event='z-cure@2026-11-26#1']"
            try await browser.type("felt sick", into: morning + " input[name=reason]")
            try await browser.click(morning + " form.not-taken button")
            _ = try await browser.wait(for: morning + ".state-notCompleted")
            let status = try #require(try await browser.text(morning + " .status"))
            #expect(status.hasPrefix("Not taken (recorded at 16:") && status.hasSuffix("): felt sick"), "\(status)")
            try await browser.click(evening + " form:first-of-type button")
            _ = try await browser.wait(for: evening + ".state-completed")
            // By day: today's bar is one dose of two.
            try await browser.open(web.url + "medications/z-cure?group=day")
            #expect(try await browser.execute("return document.querySelector(\"rect.bar[data-group='2026-11-26']\").dataset.value") as? String == "50")
            #expect(try await browser.text("table.figures")?.contains("2026-11-26 1/2 · 50 %") == true)
            try Self.save(try await browser.screenshot(), as: "medication")
            // In German, the list and its words.
            try await browser.open(web.url + "medications?lang=de")
            #expect(try await browser.text("main h1") == "Medikamente")
        }
        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        let outcomes = history.filter { $0["activity"] as? String == "z-cure" }.compactMap { $0["outcome"] as? [String: Any] }
        let notTaken = try #require(outcomes.first { $0["state"] as? String == "notCompleted" }, "\(history.suffix(3))")
        #expect(notTaken["reason"] as? String == "felt sick" && (notTaken["device"] as? String)?.hasPrefix("browser:") == true, "\(notTaken)")
        await web.primary.stop()
    }

    @Test func aPairingCodeMadeInTheBrowserPairsAWidgetWhichTheBrowserThenRevokes() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store)
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: web.signInCode)
            try await browser.open(web.url + "devices")
            _ = try await browser.execute("document.getElementById('kind').value = 'widget'")
            try await browser.click("form[action='/devices/code'] button")
            _ = try await browser.wait(for: ".big-code")  // the click does not wait for the page it leads to
            let code = try #require(try await browser.execute("return document.querySelector('.big-code').dataset.code") as? String)
            try Self.save(try await browser.screenshot(), as: "devices-code")
            // The code is shown on a page of its own address: reloading it shows the same code
            // (no second one made), and its language link leads to a page, not a 404.
            let shown = try await browser.url
            #expect(shown.contains("/devices?code="), "\(shown)")
            try await browser.open(shown)
            #expect(try await browser.execute("return document.querySelector('.big-code').dataset.code") as? String == code)
            try await browser.click("a[lang='de']")
            _ = try await browser.wait(for: "html[lang='de']")
            #expect(try await browser.text("h1") == "Geräte")
            try await browser.click("a[lang='en']")
            _ = try await browser.wait(for: "html[lang='en']")
            try await browser.open(shown)
            let paired = try await CareSyncCommand.run(
                executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
                ["pair", code, "--connect", web.primary.endpoint, "--state-dir", scratch.path("widget"), "--json"])
            #expect(paired.status == 0, "\(paired.stdout)\(paired.stderr)")
            // A widget refreshes (connects, shows today, exits): first as paired, then revoked.
            let refresh = { try await CareSyncCommand.run(
                executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
                ["--connect", web.primary.endpoint, "--state-dir", scratch.path("widget"), "--json"]) }
            let before = try await refresh()
            #expect(before.status == 0 && before.stdout.contains("\"type\":\"context\""), "\(before.stdout)\(before.stderr)")
            // The open page followed the pairing: the used code is gone, and the connection never seemed lost.
            try await waitFor("the used code gone from the open page") { try await browser.element(".big-code") == nil }
            #expect(try await browser.execute("return document.getElementById('connection').hidden") as? Bool == true)
            try await browser.open(web.url + "devices")
            _ = try await browser.wait(for: "li.device form[action='/devices/revoke'] button")
            try Self.save(try await browser.screenshot(), as: "devices")
            try await browser.click("li.device form[action='/devices/revoke'] button")
            // The page before the click has a device too: wait for the one after it.
            try await waitFor("the revoked device without its revoke button") {
                let device = try await browser.element("li.device")
                let revoke = try await browser.element("li.device form[action='/devices/revoke']")
                return device != nil && revoke == nil
            }
            #expect(try await browser.text("li.device .status")?.hasPrefix("Revoked") == true)
            let after = try await refresh()
            let refusal = after.lines.compactMap(WatchProcess.object).first { $0["code"] as? String == "NOT_PAIRED" }
            #expect(after.status != 0 && (refusal?["message"] as? String)?.contains("revoked") == true, "\(after.stdout)\(after.stderr)")
        }
        await web.primary.stop()
    }

    @Test func insightsAndConnectShowTheRecordAndTheContacts() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday)
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: web.signInCode)
            try await browser.open(web.url + "insights?days=7")
            _ = try await browser.wait(for: ".insights svg.chart")
            #expect(try await browser.text(".groupings [aria-current]") == "Last 7 days")
            #expect(try await browser.element("a[href='/report.html?days=7']") != nil)
            try Self.save(try await browser.screenshot(), as: "insights")
            _ = try await browser.execute("document.querySelector('.insights figure').scrollIntoView()")
            let chart = try await browser.screenshot()
            try Self.save(chart, as: "insights-chart")
            // Each series is drawn in its legend's colour: the bars carry it, no style repaints them.
            let painted = try #require(try await browser.execute("""
                return [...document.querySelectorAll('.insights svg.chart rect.bar')].map(bar => getComputedStyle(bar).fill)
                """) as? [String])
            let legend = try #require(try await browser.execute("""
                return [...document.querySelectorAll('.insights .legend .swatch rect')].map(swatch => getComputedStyle(swatch).fill)
                """) as? [String])
            #expect(Set(painted).count > 1, "every bar one colour: \(Set(painted))")
            #expect(Set(painted).isSubset(of: Set(legend)), "bars \(Set(painted)) vs legend \(Set(legend))")
            try await browser.open(web.url + "connect")
            let call = try #require(try await browser.execute("return [...document.querySelectorAll('a[href^=\"tel:\"]')].map(a => a.getAttribute('href'))") as? [String])
            #expect(!call.isEmpty && call.allSatisfy { $0.dropFirst(4).allSatisfy { $0.isNumber || $0 == "+" } }, "\(call)")
            try Self.save(try await browser.screenshot(), as: "connect")
        }
        await web.primary.stop()
    }

    @Test func theOpenPageSaysWhenItLostThePrimaryAndCatchesUpWhenItReturns() async throws {
        let caresync = try await exampleStore(in: scratch)
        var web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday)
        // The primary comes back on the port the kernel gave it first, as a restarted one does.
        let port = try #require(URLComponents(string: web.url)?.port)
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: web.signInCode)
            let first = "li[data-event='golden-apple@2026-11-26#0']"
            #expect(try await browser.element(first + ":not(.state-completed)") != nil)
            await web.primary.stop()
            try await waitFor("the page to show the connection lost") {
                try await browser.execute("return !document.getElementById('connection').hidden") as? Bool == true
            }
            try Self.save(try await browser.screenshot(), as: "lost")
            // Recorded by the command line while the primary is down; the page learns of it once back.
            #expect(try await caresync.run("complete", "golden-apple", "--occurrence", "0", "--date", "2026-11-26").status == 0)
            web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday, webPort: port)
            _ = try await browser.wait(for: first + ".state-completed")
            #expect(try await browser.execute("return document.getElementById('connection').hidden") as? Bool == true)
        }
        await web.primary.stop()
    }

    /// A browser session revoked from the command line (another process) sends its open
    /// page to the sign-in form at the store's next commit, instead of "lost" for good.
    @Test func aSessionRevokedFromTheCommandLineSendsTheOpenPageToSignIn() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday)
        try await Self.withBrowser { browser in
            try await Self.signIn(browser, at: web.url, code: web.signInCode, name: "Revoked browser")
            try await waitFor("the page to follow the live stream") { () async throws -> Sighting<Void> in
                let live = try await browser.execute("return document.documentElement.dataset.live") as? String
                return live == "following" ? .found(()) : .notYet("data-live \(live ?? "unset")")
            }
            let listed = try await caresync.run("devices", "--json")
            let session = try #require(listed.lines.compactMap(WatchProcess.object).first { $0["name"] as? String == "Revoked browser" })
            let id = try #require(session["id"] as? String)
            #expect(try await caresync.run("devices", "revoke", id).stdout.contains("Signed out the browser \"Revoked browser\""))
            #expect(try await caresync.run("complete", "golden-apple", "--occurrence", "0", "--date", "2026-11-26").status == 0)
            try await waitFor("the revoked browser sent to sign in") { () async throws -> Sighting<Void> in
                let url = try await browser.url
                return url.hasSuffix("/sign-in") ? .found(()) : .notYet(url)
            }
            _ = try await browser.wait(for: "form[action='/sign-in']")
        }
        await web.primary.stop()
    }

    @Test func withoutJavaScriptEveryStepWorksFromTheKeyboard() async throws {
        let caresync = try await exampleStore(in: scratch)
        let web = try await WebPrimary(store: caresync.store, clockStart: Self.thursday)
        try await Self.withBrowser(javascript: false) { browser in
            try await browser.open(web.url)
            try await browser.type(web.signInCode, into: "#code")
            try await browser.pressEnter(on: "#code")
            _ = try await browser.wait(for: "ol.week")
            // No script of the page ran: nothing follows the store.
            #expect(try await browser.execute("return document.documentElement.dataset.live === undefined") as? Bool == true)
            let first = "li[data-event='golden-apple@2026-11-26#0']"
            try await browser.pressEnter(on: first + " button")
            _ = try await browser.wait(for: first + ".state-completed")
            // A dose not taken, with its reason, by keyboard alone.
            try await browser.open(web.url + "medications/z-cure")
            let morning = "li[data-event='z-cure@2026-11-26#0']"
            try await browser.type("asleep", into: morning + " input[name=reason]")
            try await browser.pressEnter(on: morning + " input[name=reason]")
            _ = try await browser.wait(for: morning + ".state-notCompleted")
        }
        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        #expect(history.filter { ($0["device"] as? String)?.hasPrefix("browser:") == true }.count == 2, "\(history.suffix(2))")
        await web.primary.stop()
    }

    @Test func overTLSThePrimaryPrintsTheFingerprintTheBrowserIsShown() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--web", "--web-port", "0", "--web-tls"])
        let line = try #require(await primary.process.waitForLine { $0.contains("\"web\"") })
        let web = try #require(WatchProcess.object(line))
        let url = try #require(web["url"] as? String)
        #expect(url.hasPrefix("https://127.0.0.1:"))
        let printed = try #require(web["fingerprint"] as? String)
        // What a browser's certificate viewer shows: the SHA-256 of the certificate it was given.
        let port = try #require(URL(string: url)?.port)
        let certificate = try await CareSyncCommand.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256"])
        #expect(certificate.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("=" + printed), "\(certificate.stdout) vs \(printed)")
        await primary.stop()
    }
}
