import CareInsights
import CarePlan
import CareReport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The report's XHTML, read back with an XML parser: its sections, and a bar per group and
/// series as high as the numbers say.
struct ReportHTMLTests {
    /// Every element of a document: name, attributes, and the text directly in it.
    final class Elements: NSObject, XMLParserDelegate {
        struct Element { var name: String; var attributes: [String: String]; var text = "" }
        var all: [Element] = []
        private var open: [Int] = []

        init(_ xml: String) throws {
            super.init()
            let parser = XMLParser(data: Data(xml.utf8))
            parser.delegate = self
            guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            open.append(all.count)
            all.append(Element(name: name, attributes: attributes))
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { all[last].text += string }
        }

        func named(_ name: String) -> [Element] { all.filter { $0.name == name } }
        func texts(_ name: String) -> [String] { named(name).map(\.text) }
    }

    @Test func oneSelfContainedDocumentWithEverySection() async throws {
        let fixture = try await ReportFixture()
        let report = try await fixture.report(comments: ["Pain was worse on the days the second dose was missed."])
        let html = report.html
        let elements = try Elements(html)
        #expect(elements.texts("h1") == ["Care report: ZombieCare"])
        let meta = elements.all.filter { $0.attributes["class"] == "meta" }.map(\.text).joined()
        #expect(meta.hasPrefix("Zed Zombie, born 31 Oct 1986, ZC-0042 · ZombieCare · 16 Nov 2026 – 25 Nov 2026 · Europe/Vienna"))
        #expect(elements.texts("h2") == ["Summary", "Messages", "Charts", "Activities", "Contacts", "Comments"])
        // Nothing runs and nothing is fetched: no script, no external resource.
        #expect(elements.named("script").isEmpty && elements.named("img").isEmpty && elements.named("link").isEmpty)
        #expect(!html.contains("src=") && !html.contains("url("))
        #expect(elements.named("a").compactMap { $0.attributes["href"] }.allSatisfy { $0.hasPrefix("tel:") || $0.hasPrefix("mailto:") })
        // Summary: due interventions and assessments over the ten days, as counted by the insights.
        let totals = report.totals
        #expect(totals.interventions.total > 0 && totals.assessments.completed == 10)
        let summary = try #require(elements.all.first { $0.attributes["class"] == "summary" }?.text)
        #expect(summary.hasPrefix("Over the 10 days from Mon 16 Nov to Wed 25 Nov,"))
        #expect(summary.contains("of due assessments (10 of \(totals.assessments.total))"))
        // The messages, in the insights' order.
        #expect(elements.all.filter { $0.attributes["class"]?.hasPrefix("message") == true }.map { $0.attributes["data-rule"] }
            == report.insights.messages.map(\.rule))
        #expect(elements.texts("p").contains("Pain was worse on the days the second dose was missed."))
        // The activity table: a row per activity, a column per day; Z-Cure's cells as recorded.
        let rows = elements.named("tr").compactMap { $0.attributes["data-activity"] }
        #expect(rows == report.insights.record.activities.map(\.identifier))
        let cells = elements.named("td").map(\.text)
        let zcure = try #require(cells.firstIndex(of: "Z-Cure 50 mg"))
        #expect(Array(cells[(zcure + 1)...(zcure + 10)]) == ["–", "–", "–", "–", "2/2", "1/2", "2/2", "1/2", "2/2", "1/2"])
    }

    @Test func aBarPerDayAndSeriesAsHighAsItsValue() async throws {
        let report = try await ReportFixture().report()
        let elements = try Elements(report.html)
        let charts = elements.named("svg").filter { $0.attributes["class"] == "chart wide" }
        #expect(charts.count == 3)
        // Each legend entry's swatch is a little drawing of its own, in the series' colour.
        let swatches = elements.named("svg").filter { $0.attributes["class"] == "swatch" }
        #expect(swatches.count == report.insights.chart.series.count, "\(swatches.count)")
        let plotHeight = try #require(charts.first?.attributes["data-plot-height"].flatMap(Double.init))
        let zeroHeight = try #require(charts.first?.attributes["data-zero-height"].flatMap(Double.init))
        let bars = elements.named("rect").filter { $0.attributes["class"] == "bar" }
        var checked = 0
        for series in report.insights.chart.series {
            let key = series.component.map { "\(series.activity)/\($0)" } ?? series.activity
            let drawn = bars.filter { $0.attributes["data-series"] == key }
            // One bar per day with a value, none for a day without.
            let withValues = zip(report.insights.chart.groups, series.values).filter { $0.1 != nil }.map(\.0.identifier)
            #expect(drawn.compactMap { $0.attributes["data-group"] } == withValues, "\(key)")
            for bar in drawn {
                let index = try #require(report.insights.chart.groups.firstIndex { $0.identifier == bar.attributes["data-group"] })
                let expected = max(try #require(series.normalized[index]) * plotHeight, zeroHeight)
                #expect(abs(try #require(bar.attributes["height"].flatMap(Double.init)) - expected) < 0.01, "\(key) \(index)")
                checked += 1
            }
        }
        // Pain on all ten days, Z-Cure on six: at least those were checked.
        #expect(checked >= 16)
        let pain = bars.filter { $0.attributes["data-series"] == "pain" }.compactMap { $0.attributes["data-value"] }
        #expect(pain == ["8", "8", "7", "1", "3", "8", "2", "7", "3", "8"])
        let zcure = bars.filter { $0.attributes["data-series"] == "z-cure" }.compactMap { $0.attributes["data-value"] }
        #expect(zcure == ["100", "50", "100", "50", "100", "50"])
        // The watch's measurements in a chart of their own: heart rate's mean, steps' total per day.
        let heart = bars.filter { $0.attributes["data-series"] == "heart-rate" }.compactMap { $0.attributes["data-value"] }
        #expect(heart == ["75", "90", "62"])
        let steps = bars.filter { $0.attributes["data-series"] == "steps" }.compactMap { $0.attributes["data-value"] }
        #expect(steps == ["4000", "8000"])
        let figures = elements.named("figure").compactMap { $0.attributes["class"] }
        #expect(figures == ["chart-intervention", "chart-assessment", "chart-measurement"])
    }

    @Test func inGermanFromTheLanguageFiles() async throws {
        let report = try await ReportFixture().report("de")
        let elements = try Elements(report.html)
        #expect(elements.texts("h1") == ["Pflegebericht: ZombieCare"])
        #expect(elements.texts("h2") == ["Zusammenfassung", "Hinweise", "Diagramme", "Aktivitäten", "Kontakte"])
        #expect(elements.named("html").first?.attributes["lang"] == "de")
        let summary = try #require(elements.all.first { $0.attributes["class"] == "summary" }?.text)
        #expect(summary.hasPrefix("In den 10 Tagen vom Mo, 16. Nov. bis Mi, 25. Nov. wurden"))
    }
}
