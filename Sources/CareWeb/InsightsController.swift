import CarePlan
import CarePlanStore
import CareReport
import Foundation
import Hummingbird
import Markup

/// Insights (`/insights`) and the care report to download (`/report.html`, `/report.pdf`,
/// printed one at a time through the print queue).
struct InsightsController: Sendable {
    let store: CarePlanStore, calendar: PlanCalendar, printQueue: PrintQueue

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/insights") { request, context in try await insights(request, context) }
        router.get("/report.html") { request, context in try await report(request, context, pdf: false) }
        router.get("/report.pdf") { request, context in try await report(request, context, pdf: true) }
    }

    /// The periods the insights page offers, in days up to today.
    static let insightPeriods = [7, 14, 28]

    /// Insights: the care report's summary, messages and charts for the last 7, 14 or 28
    /// days, and the report itself to download (HTML, or PDF printed by Chromium).
    func insights(_ request: Request, _ context: WebContext) async throws -> Response {
        _ = try context.session()
        let revision = try await store.revision()
        let days = try await period(request)
        let report = try await CareReport.read(from: store, days: days, now: calendar.clock.now, language: context.words.language)
        let words = context.words
        let count = days.lowerBound.distance(to: days.upperBound) + 1
        let page = WebPage(title: words["insights", "title"], section: .insights, context: context, revision: revision)
        return page.response { main in
            main.element("nav", ["class": "groupings", "aria-label": words["insights", "periods"]]) { nav in
                for option in Self.insightPeriods {
                    let label = words.counted("insights", "lastDays", count: option)
                    if option == count {
                        nav.element("span", ["aria-current": "true"], text: label)
                    } else {
                        nav.element("a", ["href": "/insights?days=\(option)"], text: label)
                    }
                }
            }
            main.element("p", ["class": "links"]) { links in
                links.element("a", ["href": "/report.html?days=\(count)", "class": "button", "download": "download"], text: words["insights", "reportHTML"])
                links.element("a", ["href": "/report.pdf?days=\(count)", "class": "button secondary", "download": "download"], text: words["insights", "reportPDF"])
            }
            main.element("div", ["class": "insights"]) { report.writeInsights(to: &$0, forScreens: true) }
        }
    }

    /// The care report of the period the query names, as a file to keep.
    func report(_ request: Request, _ context: WebContext, pdf: Bool) async throws -> Response {
        _ = try context.session()
        let days = try await period(request)
        let report = try await CareReport.read(from: store, days: days, now: calendar.clock.now, language: context.words.language)
        let name = "care-report-\(days.lowerBound)-\(days.upperBound)"
        let body: ByteBuffer
        if pdf {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-web-\(UUID().uuidString).pdf")
            defer { try? FileManager.default.removeItem(at: file) }
            try await printQueue.run { try await ReportPrinter().pdf(of: report.html, to: file) }
            body = ByteBuffer(bytes: try Data(contentsOf: file))
        } else {
            body = ByteBuffer(string: report.html)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: pdf ? "application/pdf" : "application/xhtml+xml; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(name).\(pdf ? "pdf" : "html")\"",
                .cacheControl: "no-store",
                // The report is one document with its own style element and nothing to run.
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
            ],
            body: .init(byteBuffer: body))
    }

    /// The days up to today that `?days=` names (7, 14 or 28; 14 without it).
    private func period(_ request: Request) async throws -> ClosedRange<CalendarDay> {
        let text = request.uri.queryParameters["days"].map(String.init) ?? "14"
        guard let count = Int(text), Self.insightPeriods.contains(count) else {
            throw WebFailure.badForm("\"days\" must be 7, 14 or 28, not \"\(text)\"")
        }
        let today = try await calendar.today()
        return today.adding(days: 1 - count)...today
    }
}
