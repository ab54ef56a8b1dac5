import ArgumentParser
import CareLanguage
import CarePlan
import CarePlanStore
import CareReport
import Foundation
import LineOutput

/// `caresync report`: the care report of a week or a range of days, as HTML or PDF.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the care report to share with the care team: HTML, or PDF through headless Chromium.",
        discussion: """
            One self-contained file: the plan and period, a summary, the insight messages, the charts, each \
            activity's completion per day (per week beyond 14 days), the contacts and your comments. HTML needs \
            nothing else; PDF needs Chromium (scripts/install-deps installs it).
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var period: PeriodOptions

    @OptionGroup var content: ReportOptions

    @Option(help: ArgumentHelp("The file to write: FILE.html or FILE.pdf.", valueName: "file"))
    var out: String

    func validate() throws {
        guard ["html", "pdf"].contains(URL(fileURLWithPath: out).pathExtension.lowercased()) else {
            throw ValidationError(ReportError.unknownFormat(out).description)
        }
    }

    func run() async throws {
        try await reportingFailures {
            let store = try await options.open()
            let zone = try await store.plan.timeZone()
            let now = Date()
            let days = try period.days(today: CalendarDay.containing(now, in: zone))
            let report = try await content.report(from: store, days: days, now: now)
            let output = URL(fileURLWithPath: out)
            if output.pathExtension.lowercased() == "pdf" {
                try await ReportPrinter().pdf(of: report.html, to: output)
            } else {
                do { try Data(report.html.utf8).write(to: output, options: .atomic) } catch {
                    throw ReportError.cannotWrite(out, "\(error)")
                }
            }
            emit("Wrote the report of \(days.lowerBound) – \(days.upperBound) to \(out)")
        }
    }
}

extension CareReport.Paper: ExpressibleByArgument {}

/// What a report holds beyond its days: its language, paper and comments (`report`, `share report`).
struct ReportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The report's language: en or de.", valueName: "code"))
    var lang = "en"

    @Option(help: "The paper it is laid out for: a4 or letter.")
    var paper: CareReport.Paper = .a4

    @Option(help: ArgumentHelp("A comment for the care team; repeat for several paragraphs.", valueName: "text"))
    var comment: [String] = []

    /// The report of `days` from `store`, as of `now`.
    func report(from store: CarePlanStore, days: ClosedRange<CalendarDay>, now: Date) async throws -> CareReport {
        try await CareReport.read(from: store, days: days, now: now, language: try Language(lang), paper: paper, comments: comment)
    }
}
