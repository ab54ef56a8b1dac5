import CareInsights
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation

/// The care report, as CareKit's OCKDocument: the plan, the period, a summary, the insight
/// messages, the charts, each activity's completion per day (or week), the contacts and
/// comments, in one language. ``html`` is one self-contained XHTML file (inline CSS and SVG,
/// no script, nothing fetched) that prints on A4 or Letter; ``ReportPrinter`` makes a PDF.
public struct CareReport: Sendable {
    /// The paper the report is laid out for.
    public enum Paper: String, Sendable, CaseIterable {
        case a4, letter
    }

    public var planTitle: String
    public var patient: Patient?
    public var timeZone: TimeZone
    public var madeAt: Date
    public var insights: Insights
    public var contacts: [Contact]
    public var comments: [String]
    public var language: Language
    public var paper: Paper

    public init(
        planTitle: String, patient: Patient? = nil, timeZone: TimeZone, madeAt: Date, insights: Insights, contacts: [Contact],
        comments: [String] = [], language: Language, paper: Paper = .a4
    ) {
        self.planTitle = planTitle
        self.patient = patient
        self.timeZone = timeZone
        self.madeAt = madeAt
        self.insights = insights
        self.contacts = contacts
        self.comments = comments
        self.language = language
        self.paper = paper
    }

    /// The report of `days` from the store, as of `now`: the plan's rules, time zone and
    /// contacts, by day up to 14 days and by week beyond.
    public static func read(
        from store: CarePlanStore, days: ClosedRange<CalendarDay>, now: Date, language: Language, paper: Paper = .a4,
        comments: [String] = []
    ) async throws(CarePlanStoreError) -> CareReport {
        let info = try await store.plan.info()
        guard let zone = info.timeZone else { throw .planNotConfigured }
        let read = Insights.daysToRead(for: days, rules: info.insights)
        let insights = Insights(
            days: days, events: try await store.outcomes.events(from: read.lowerBound, through: read.upperBound),
            measurements: try await store.measurements.list(on: days, in: zone).map(\.measurement), rules: info.insights, timeZone: zone, now: now, grouping: days.count > 14 ? .week : .day, language: language)
        return CareReport(
            planTitle: info.title ?? "", patient: info.patient, timeZone: zone, madeAt: now, insights: insights, contacts: try await store.plan.contacts(),
            comments: comments, language: language, paper: paper)
    }

    /// Due events done over the period, interventions and assessments apart (as-needed ones
    /// are never due).
    public var totals: (interventions: Tally, assessments: Tally) {
        var totals = (interventions: Tally(), assessments: Tally())
        let record = insights.record
        for activity in record.activities {
            for day in insights.first...insights.last {
                let facts = record.day(day, of: activity)
                let tally = Tally(completed: facts.completed, total: facts.counted)
                switch activity.kind {
                case .intervention: totals.interventions = totals.interventions + tally
                case .assessment: totals.assessments = totals.assessments + tally
                }
            }
        }
        return totals
    }
}
