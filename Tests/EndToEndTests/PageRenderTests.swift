import Foundation
import Testing

/// Every page of the care app as a person sees it: rendered by headless Chromium at a phone's
/// size and a desktop's, in English and German, each saved as a PNG (`.build/renders/`,
/// `scripts/renders` copies those the documents show into Docs/) and checked for what it must show: the
/// page's own heading and language, no placeholder left unfilled, nothing wider than the
/// window, and for every chart each series' bars in its legend's colour, group labels that
/// do not overlap and are legible, and axis labels drawn whole.
@Suite(.serialized)
struct PageRenderTests {
    let scratch = Scratch()

    /// The sizes looked at: a phone's (390 × 844) and a desktop's (1280 × 900).
    static let sizes: [(name: String, width: Int, height: Int)] = [("phone", 390, 844), ("desktop", 1280, 900)]

    /// The pages, by the name their PNG gets and their path.
    static let pages: [(name: String, path: String)] = [
        ("care-card", ""), ("care-card-past", "?day=2026-11-21"), ("care-card-future", "?day=2026-11-28"), ("symptoms", "symptoms"), ("medications", "medications"), ("medication", "medications/z-cure?group=day"),
        ("insights", "insights?days=7"), ("connect", "connect"), ("health-record", "health-record"), ("devices", "devices"),
        ("not-found", "nowhere"),
    ]

    /// The smallest legible text, in CSS pixels as rendered (issue 53, item 7: labels were
    /// drawn at 6.7 to 8.6 px).
    static let smallestText = 11.0

    @Test(arguments: sizes.map(\.name))
    func everyPageAtThisSizeInBothLanguages(size name: String) async throws {
        let size = try #require(Self.sizes.first { $0.name == name })
        let caresync = try await exampleStore(in: scratch)
        try await record(caresync)
        let web = try await WebAppTests.WebPrimary(store: caresync.store, clockStart: WebAppTests.thursday)
        let browser = try await WebDriver(width: size.width, height: size.height)
        do {
            try await browser.open(web.url + "sign-in")
            try await look(browser, at: "sign-in", size: name, width: size.width, language: "en")
            try await WebAppTests.signIn(browser, at: web.url, code: web.signInCode)
            for language in ["en", "de"] {
                try await browser.open(web.url + "?lang=\(language)")
                _ = try await browser.wait(for: "html[lang='\(language)']")
                for page in Self.pages {
                    try await browser.open(web.url + page.path)
                    try await look(browser, at: page.name, size: name, width: size.width, language: language)
                }
                try await browser.open(web.url + "devices")
                try await browser.click("form[action='/devices/code'] button")
                _ = try await browser.wait(for: ".big-code")
                try await look(browser, at: "devices-code", size: name, width: size.width, language: language)
                // Days gone by and days to come read as what they are (issue 53, item 9).
                try await browser.open(web.url + "?day=2026-11-21")
                let unrecorded = try await browser.text("li.state-unrecorded[data-event='golden-apple@2026-11-21#1'] button") ?? ""
                #expect(unrecorded.contains(language == "en" ? "not recorded" : "nicht erfasst"), "\(unrecorded)")
                try await browser.open(web.url + "?day=2026-11-28")
                #expect(try await browser.execute("return document.querySelectorAll('.occurrences button').length") as? Int == 0)
                let upcoming = try await browser.text("li.state-upcoming[data-event='golden-apple@2026-11-28#0']") ?? ""
                #expect(upcoming.contains(language == "en" ? "to come" : "steht bevor"), "\(upcoming)")
                #expect(try await browser.execute("return document.querySelectorAll('.week svg.to-come .ring-text').length") as? Int == 0)
                // Each assessment asks its question (issue 53, item 9).
                try await browser.open(web.url + "symptoms")
                #expect(try await browser.text("li[data-event^='pain@'] .question") == "How much does the bite hurt?")
                #expect(try await browser.text("li[data-event^='mood@'] .question") == "Rate your mood from 1 (grim) to 5 (lively).")
                // Connect refuses plain http beyond this machine, in the page's language.
                try await browser.open(web.url + "health-record")
                try await browser.type("http://192.0.2.1/fhir", into: "#server")
                try await browser.click("#connect")
                _ = try await browser.wait(for: "main .notice.error")
                let refusal = try await browser.text("main .notice.error") ?? ""
                #expect(refusal.contains(language == "en" ? "only over https" : "nur über https"), "\(refusal)")
                try await look(browser, at: "health-record-refused", size: name, width: size.width, language: language)
            }
        } catch {
            await browser.quit()
            await web.primary.stop()
            throw error
        }
        await browser.quit()
        await web.primary.stop()
    }

    /// A week of the example plan recorded, some done and some not, so that every chart has bars.
    private func record(_ caresync: CareSyncCommand) async throws {
        for (offset, day) in ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"].enumerated() {
            var commands: [[String]] = [["golden-apple", "--occurrence", "0"], ["z-cure", "--occurrence", "0"],
                                        ["pain", "--occurrence", "0", "--value", "\(2 + offset % 4)"]]
            if offset % 2 == 0 { commands += [["golden-apple", "--occurrence", "1"], ["z-cure", "--occurrence", "1"], ["no-brains", "--occurrence", "0"]] }
            for command in commands {
                let result = try await CareSyncCommand.run(
                    executable: CareSyncCommand.executable, ["complete"] + command + ["--date", day, "--store", caresync.store])
                guard result.status == 0 else { throw CommandFailed(result: result) }
            }
        }
    }

    /// Saves the page's screenshot and checks what it must show.
    private func look(_ browser: WebDriver, at page: String, size: String, width: Int, language: String) async throws {
        _ = try await browser.wait(for: "main h1")
        let where_ = "\(page) (\(size), \(language))"
        try WebAppTests.save(try await browser.screenshot(), as: "\(page)-\(size)-\(language)")
        // A chart below the fold is looked at too.
        if try await browser.execute("const f = document.querySelector('main figure'); if (f) f.scrollIntoView(); return !!f") as? Bool == true {
            try WebAppTests.save(try await browser.screenshot(), as: "\(page)-chart-\(size)-\(language)")
            _ = try await browser.execute("window.scrollTo(0, 0)")
        }
        let facts = try #require(try await browser.execute(Self.facts, [Self.smallestText]) as? [String: Any], "\(where_)")
        #expect(facts["lang"] as? String == language, "\(where_): \(facts)")
        #expect(facts["width"] as? Int == width, "\(where_): drawn \(facts["width"] ?? "") wide")
        #expect((facts["heading"] as? String)?.isEmpty == false, "\(where_): no heading")
        #expect(facts["overflow"] as? Bool == false, "\(where_): wider than the window: \(facts["widest"] ?? "")")
        #expect((facts["placeholders"] as? [String])?.isEmpty == true, "\(where_): unfilled \(facts["placeholders"] ?? "")")
        if language == "de" {  // issue 53, item 7: "73.1 kg", "66.67 %" on German pages
            #expect((facts["decimalPoints"] as? [String])?.isEmpty == true, "\(where_): \(facts["decimalPoints"] ?? "")")
        }
        for chart in facts["charts"] as? [[String: Any]] ?? [] {
            let name = "\(where_), chart \(chart["title"] ?? "")"
            #expect((chart["bars"] as? Int ?? 0) > 0, "\(name): no bars")
            #expect((chart["foreignFills"] as? [String])?.isEmpty == true, "\(name): bars not in a legend colour: \(chart["foreignFills"] ?? "")")
            #expect((chart["overlaps"] as? [String])?.isEmpty == true, "\(name): labels overlap: \(chart["overlaps"] ?? "")")
            #expect((chart["clipped"] as? [String])?.isEmpty == true, "\(name): labels cut off: \(chart["clipped"] ?? "")")
            #expect((chart["tiny"] as? [String])?.isEmpty == true, "\(name): labels too small to read: \(chart["tiny"] ?? "")")
            #expect(chart["fillsPage"] as? Bool == true, "\(name): \(chart["drawnWidth"] ?? "") px wide in a page \(chart["pageWidth"] ?? "") px wide")
        }
    }

    /// What the page shows, measured by the browser: the heading, the language, whether
    /// anything is wider than the window, `{placeholders}` left in the text, and per chart
    /// its bars' fills against its legend's, overlapping or cut-off labels, tiny ones (the
    /// text's size times the drawing's scale), and whether it is as wide as the page's text
    /// (on a phone) or its own full width.
    static let facts = """
        const smallest = arguments[0];
        const width = document.documentElement.clientWidth;
        const widest = [...document.querySelectorAll("body *")].map((e) => [e, e.getBoundingClientRect()])
          .filter(([e, r]) => r.right > width + 1 && !e.closest("svg")).map(([e]) => e.tagName + "." + e.className).slice(0, 3);
        const shown = (e) => e.getBoundingClientRect().width > 0;
        const charts = [...document.querySelectorAll("svg.chart")].filter(shown).map((svg) => {
          const box = svg.getBoundingClientRect();
          const figure = svg.closest("figure");
          const legend = new Set([...(figure?.querySelectorAll(".legend .swatch rect") || [])].map((r) => getComputedStyle(r).fill));
          const bars = [...svg.querySelectorAll("rect.bar")];
          const fills = bars.map((b) => getComputedStyle(b).fill);
          const labels = [...svg.querySelectorAll("text")].map((t) => [t.textContent, t.getBoundingClientRect(), parseFloat(getComputedStyle(t).fontSize)]);
          const scale = box.width / svg.viewBox.baseVal.width;
          const main = document.querySelector("main");
          const style = getComputedStyle(main);
          const pageWidth = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          const fullWidth = Math.min(pageWidth, parseFloat(getComputedStyle(svg).maxWidth) || Infinity);
          const row = labels.filter(([, r]) => r.top > box.top + box.height * 0.8).sort((a, b) => a[1].left - b[1].left);
          const overlaps = [];
          for (let i = 1; i < row.length; i++) if (row[i][1].left < row[i - 1][1].right - 0.5) overlaps.push(row[i - 1][0] + " | " + row[i][0]);
          return {
            title: svg.getAttribute("aria-label"), bars: bars.length,
            foreignFills: legend.size ? [...new Set(fills)].filter((f) => !legend.has(f)) : [],
            overlaps,
            clipped: labels.filter(([, r]) => r.left < box.left - 0.5 || r.right > box.right + 0.5).map(([t]) => t),
            tiny: labels.filter(([, , size]) => size * scale < smallest).map(([t, , size]) => t + " " + (size * scale).toFixed(1) + "px"),
            fillsPage: box.width >= fullWidth - 1, drawnWidth: box.width, pageWidth,
          };
        });
        return {
          width: window.innerWidth, lang: document.documentElement.lang, heading: document.querySelector("main h1")?.textContent.trim(),
          overflow: document.documentElement.scrollWidth > width + 1, widest,
          placeholders: document.body.innerText.match(/\\{[a-zA-Z]+\\}/g) || [], charts,
          // Every text the page holds, the bars' titles too: numbers written with a decimal point
          // (not an address's dots).
          decimalPoints: [...document.querySelectorAll("main *")].flatMap((e) => [...e.childNodes])
            .filter((n) => n.nodeType === 3).map((n) => n.textContent).filter((t) => /(^|[^\\d.])\\d+\\.\\d+(?![\\d.])/.test(t)).slice(0, 3),
        };
        """
}
