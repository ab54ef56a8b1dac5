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

        init(store: String) async throws {
            primary = try await PrimaryProcess(store: store, extra: ["--web", "--web-port", "0"])
            guard let line = await primary.process.waitForLine(where: { $0.contains("\"web\"") }),
                  let web = WatchProcess.object(line), let url = web["url"] as? String, let code = web["signInCode"] as? String
            else { throw ProcessFailed(description: "the primary did not announce its care app: \(primary.process.output)") }
            self.url = url
            signInCode = code
        }
    }

    /// Where the screenshots go (the README shows some of them from Docs/).
    static let renders = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/renders")

    func save(_ png: Data, as name: String) throws {
        try FileManager.default.createDirectory(at: Self.renders, withIntermediateDirectories: true)
        try png.write(to: Self.renders.appendingPathComponent("web-\(name).png"))
    }

    /// Signs `browser` in with `code` on the sign-in page, as a person types it.
    func signIn(_ browser: WebDriver, at url: String, code: String, name: String = "Test browser") async throws {
        try await browser.open(url)
        _ = try await browser.wait(for: "form[action='/sign-in']")
        try await browser.type(code.lowercased(), into: "#code")
        try await browser.type(name, into: "#name")
        try await browser.click("form[action='/sign-in'] button")
        _ = try await browser.wait(for: "ol.week")
    }

    /// Runs `body` with a new headless browser, which is closed afterwards whatever happens.
    func withBrowser(_ body: (WebDriver) async throws -> Void) async throws {
        let browser = try await WebDriver()
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
        try await withBrowser { browser in

        // Signing in: the code as the primary printed it (typed in lower case), then the care card.
        try await browser.open(web.url)
        _ = try await browser.wait(for: "#code")
        #expect(try await browser.url.hasSuffix("/sign-in"))
        try save(try await browser.screenshot(), as: "sign-in")
        try await signIn(browser, at: web.url, code: web.signInCode)
        #expect(try await browser.title == "Care card · CareSync")
        let first = "li[data-event='golden-apple@\(today)#0']"
        #expect(try await browser.element(first + ".state-initial button") != nil)
        let before = try await browser.screenshot()

        // A click records it through the store; the watch receives it in its next context.
        try await browser.click(first + " button")
        _ = try await browser.wait(for: first + ".state-completed")
        try await watch.waitForState("golden-apple", 0, "completed")
        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        #expect((history.last?["device"] as? String)?.hasPrefix("browser:") == true, "\(history.last ?? [:])")

        // The watch completes another: the open page shows it without a reload.
        let second = "li[data-event='golden-apple@\(today)#1']"
        #expect(try await browser.element(second + ".state-initial") != nil)
        try await browser.execute("window.sameDocument = true")
        watch.send("complete golden-apple 1")
        _ = try await browser.wait(for: second + ".state-completed", timeout: 10)
        #expect(try await browser.execute("return window.sameDocument === true && Number(document.body.dataset.updates) >= 1") as? Bool == true)
        let after = try await browser.screenshot()
        try save(after, as: "care-card")

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
        try await withBrowser { browser in
        try await signIn(browser, at: web.url, code: code, name: "Grandma's tablet")
        #expect(try await browser.text(".badge") == "Household: read only")
        // The states without a button to change them.
        #expect(try await browser.element("li[data-event] button") == nil)
        #expect(try await browser.element("li[data-event] span") != nil)
        try save(try await browser.screenshot(), as: "household")

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
}
