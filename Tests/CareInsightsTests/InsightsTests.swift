import CareInsights
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// The insights of a known week, against numbers worked out by hand (in the comments): a
/// plan whose Z-Cure goes from twice to three times a day on Thursday, a walk on three
/// weekdays, an as-needed painkiller, pain, blood pressure and sleep assessments, days with
/// nothing recorded, and the week in Vienna that ends summer time (Sunday 25 October 2026).
struct InsightsTests {
    static let zone = TimeZone(identifier: "Europe/Vienna")!
    static let week = CalendarDay("2026-10-19")!...CalendarDay("2026-10-25")!
    /// Sunday 21:00 in Vienna, after the clocks went back: 20:00 UTC. The 21:30 dose is not
    /// due yet (it would be, read in summer time).
    static let now = ISO8601DateFormatter().date(from: "2026-10-25T20:00:00Z")!

    let scratch = Scratch()
    let directory: URL
    let store: CarePlanStore
    let english = try! Language("en")

    init() async throws {
        directory = scratch.url.appendingPathComponent("insights")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
    }

    static func day(_ offset: Int) -> CalendarDay { week.lowerBound.adding(days: offset) }

    static func plan(zcureTimes: [String]) throws -> Plan {
        let monday = week.lowerBound
        func times(_ list: [String]) -> [TimeOfDay] { list.map { TimeOfDay($0)! } }
        let activities = [
            try Activity(identifier: "zcure", kind: .intervention, title: "Z-Cure",
                         schedule: .daily(times: times(zcureTimes), start: monday)),
            try Activity(identifier: "ibuprofen", kind: .intervention, title: "Ibuprofen",
                         schedule: .daily(occurrences: 3, start: monday, asNeeded: true)),
            try Activity(identifier: "walk", kind: .intervention, title: "Walk",
                         schedule: .daily(times: times(["10:00"]), start: monday, weekdays: [.monday, .wednesday, .friday])),
            try Activity(identifier: "pain", kind: .assessment, title: "Pain", result: .scale(min: 0, max: 10),
                         schedule: .daily(times: times(["19:00"]), start: monday)),
            try Activity(identifier: "bp", kind: .assessment, title: "Blood pressure",
                         result: .number(unit: "mmHg", components: ["systolic", "diastolic"]),
                         schedule: .daily(times: times(["09:00"]), start: monday)),
            try Activity(identifier: "slept-well", kind: .assessment, title: "Slept well", result: .boolean,
                         schedule: .daily(occurrences: 1, start: monday)),
        ]
        let rules = InsightRules(
            ranges: [RangeRule(activity: "pain", atOrAbove: 7, days: 3)],
            comparisons: [Comparison(intervention: "zcure", assessment: "pain")],
            tips: [Tip(identifier: "walk-after-dinner", title: "Walk after dinner", text: "A short walk helps.",
                       from: day(1), until: CalendarDay("2026-10-31")),
                   Tip(identifier: "later", title: "Not yet", text: "For November.", from: CalendarDay("2026-11-01"))])
        return try Plan(title: "Week", timeZone: zone, activities: activities, insights: rules)
    }

    /// The week's record, as laid out in the comments.
    func recordTheWeek() async throws {
        try await store.core.plan.load(try Self.plan(zcureTimes: ["08:00", "21:30"]), effectiveFrom: Self.day(0), device: "t")
        try await store.core.plan.load(try Self.plan(zcureTimes: ["08:00", "14:00", "21:30"]), effectiveFrom: Self.day(3), device: "t")
        func set(_ id: String, _ offset: Int, _ occurrence: Int, _ state: EventState = .completed, _ values: [OutcomeValue] = []) async throws {
            let outcome = Outcome(state: state, values: values, recordedAt: Self.now, device: "t", reason: state == .notCompleted ? "felt sick" : nil)
            _ = try await store.record(outcome, for: EventKey(activityID: id, day: Self.day(offset), occurrence: occurrence))
        }
        // Z-Cure: Mon 2/2, Tue 1/2, Wed 0/2, Thu 3/3, Fri nothing (0/3), Sat 2/3 (the last
        // one "not taken"), Sun 2 of 2 due (21:30 is not due at 21:00).
        for (offset, occurrence) in [(0, 0), (0, 1), (1, 0), (3, 0), (3, 1), (3, 2), (5, 0), (5, 1), (6, 0), (6, 1)] {
            try await set("zcure", offset, occurrence)
        }
        try await set("zcure", 5, 2, .notCompleted)
        // Walk (Mon, Wed, Fri): Mon only.
        try await set("walk", 0, 0)
        // Ibuprofen as needed: one on Tuesday, two on Friday.
        for (offset, occurrence) in [(1, 0), (4, 0), (4, 1)] { try await set("ibuprofen", offset, occurrence) }
        // Pain 6 7 8 3 8 7 2.
        for (offset, pain) in [6, 7, 8, 3, 8, 7, 2].enumerated() { try await set("pain", offset, 0, .completed, [OutcomeValue(.integer(pain))]) }
        // Blood pressure: Mon 135/85, Tue 142/88, Wed none, Thu 138/92, Fri none, Sat 128/80, Sun 131/84.
        for (offset, (systolic, diastolic)) in [(0, (135, 85)), (1, (142, 88)), (3, (138, 92)), (5, (128, 80)), (6, (131, 84))] {
            try await set("bp", offset, 0, .completed, [
                OutcomeValue(.integer(systolic), unit: "mmHg", kind: "systolic"),
                OutcomeValue(.integer(diastolic), unit: "mmHg", kind: "diastolic"),
            ])
        }
        // Slept well: yes, no, yes, then nothing.
        for (offset, yes) in [true, false, true].enumerated() { try await set("slept-well", offset, 0, .completed, [OutcomeValue(.boolean(yes))]) }
    }

    func insights(recorded: Bool = false) async throws -> Insights {
        if !recorded { try await recordTheWeek() }
        let rules = try await store.plan.info().insights
        let read = Insights.daysToRead(for: Self.week, rules: rules)
        #expect(read == Self.day(-6)...Self.week.upperBound)
        let events = try await store.outcomes.events(from: read.lowerBound, through: read.upperBound)
        return Insights(days: Self.week, events: events, rules: rules, timeZone: Self.zone, now: Self.now, language: english)
    }

    /// The same bars, to within rounding.
    func close(_ values: [Double?], _ expected: [Double?]) -> Bool {
        values.count == expected.count && zip(values, expected).allSatisfy { value, expected in
            switch (value, expected) {
            case (nil, nil): true
            case let (value?, expected?): abs(value - expected) < 1e-9
            default: false
            }
        }
    }

    func message(_ rule: String, _ activity: String, in insights: Insights) throws -> InsightMessage {
        try #require(insights.messages.first { $0.rule == rule && $0.activities.first == activity })
    }

    func figure(_ name: String, of message: InsightMessage) -> Double? {
        message.figures.first { $0.name == name }?.value
    }

    @Test func theStoreKeepsTheRulesAndReadsEveryEventOfTheRange() async throws {
        try await recordTheWeek()
        #expect(try await store.plan.info().insights == (try Self.plan(zcureTimes: ["08:00"]).insights))
        let events = try await store.outcomes.events(from: Self.week.lowerBound, through: Self.week.upperBound)
        // Z-Cure 2+2+2+3+3+3+3, ibuprofen 3 × 7, walk 3, pain, bp and sleep 7 each.
        #expect(events.filter { $0.key.activityID == "zcure" }.count == 18)
        let expected = 18 + 21 + 3 + 21
        #expect(events.count == expected)
        #expect(events.first?.key == EventKey(activityID: "zcure", day: Self.day(0), occurrence: 0))
        #expect(events.filter { $0.key.activityID == "zcure" && $0.key.day == Self.day(3) }.map(\.version) == [2, 2, 2])
    }

    @Test func alertsRestOnTheNumbersWorkedOutByHand() async throws {
        let insights = try await insights()
        #expect(insights.messages.map { "\($0.kind.rawValue) \($0.rule) \($0.activities.joined(separator: "/"))" } == [
            "alert adherence zcure", "alert missedDaysRunning zcure", "alert adherence walk", "alert missedDaysRunning walk",
            "alert range pain", "alert range bp", "comparison comparison zcure/pain", "tip tip ",
        ])
        // Z-Cure: 10 of 17 due (2+2+2+3+3+3+2), 59 %.
        let zcure = try message("adherence", "zcure", in: insights)
        #expect(figure("completed", of: zcure) == 10)
        #expect(figure("due", of: zcure) == 17)
        #expect(zcure.text == "10 of 17 due events done in the last 7 days (59 %), below the target of 80 %.")
        // Missed Tue, Wed; Thu in full; missed Fri (3), Sat (1); Sun in full so far.
        let missed = try message("missedDaysRunning", "zcure", in: insights)
        #expect(missed.days == [Self.day(4), Self.day(5)])
        #expect(figure("missed", of: missed) == 4)
        // Walk: Mon done, Wed and Fri not: 1 of 3, and Wed–Fri are scheduled days running.
        #expect(figure("adherence", of: try message("adherence", "walk", in: insights)) == 1.0 / 3)
        #expect(try message("missedDaysRunning", "walk", in: insights).days == [Self.day(2), Self.day(4)])
        // Pain 7 or more on Tue, Wed, Fri, Sat (the rule asks for 3 days); highest 8.
        let pain = try message("range", "pain", in: insights)
        #expect(pain.days == [1, 2, 4, 5].map(Self.day))
        #expect(figure("highest", of: pain) == 8)
        // Blood pressure by the default 140/90: systolic 142 on Tue, diastolic 92 on Thu.
        let bp = try message("range", "bp", in: insights)
        #expect(bp.days == [Self.day(1), Self.day(3)])
        #expect(figure("systolic highest", of: bp) == 142)
        #expect(figure("diastolic highest", of: bp) == 92)
        #expect(bp.text == "Recorded outside the usual range on 2 days: systolic at or above 140 on 1 day (highest 142 mmHg) "
            + "and diastolic at or above 90 on 1 day (highest 92 mmHg).")
        #expect(insights.messages.last?.title == "Walk after dinner")
    }

    @Test func theComparisonSaysWhatWasSeenAndNotWhy() async throws {
        // Z-Cure in full on Mon, Thu, Sun: pain 6, 3, 2 (mean 3.67); other days 7, 8, 8, 7 (7.5).
        let comparison = try message("comparison", "zcure", in: try await insights())
        #expect(figure("days done in full", of: comparison) == 3)
        #expect(abs(figure("mean on those days", of: comparison)! - 11.0 / 3) < 1e-9)
        #expect(figure("mean on other days", of: comparison) == 7.5)
        #expect(comparison.text == "On the 3 days Z-Cure was done in full, pain averaged 3.7; on the 4 other days, 7.5 (3.8 lower). "
            + "Seen together, not shown to be cause and effect.")
    }

    @Test func inGermanFromTheSameLanguageFile() async throws {
        try await recordTheWeek()
        let rules = try await store.plan.info().insights
        let read = Insights.daysToRead(for: Self.week, rules: rules)
        let german = Insights(
            days: Self.week, events: try await store.outcomes.events(from: read.lowerBound, through: read.upperBound), rules: rules,
            timeZone: Self.zone, now: Self.now, language: try Language("de"))
        #expect(try message("adherence", "zcure", in: german).text
            == "10 von 17 fälligen Aufgaben in den letzten 7 Tagen erledigt (59 %), unter dem Ziel von 80 %.")
        #expect(try message("missedDaysRunning", "zcure", in: german).text
            == "4 fällige Aufgaben an 2 geplanten Tagen in Folge nicht erledigt (Fr, 23. Okt. und Sa, 24. Okt.).")
        #expect(try message("comparison", "zcure", in: german).text
            == "An den 3 Tagen, an denen Z-Cure vollständig erledigt wurde, lag Pain im Mittel bei 3,7; an den 4 anderen Tagen "
            + "bei 7,5 (3,8 niedriger). Zusammen beobachtet, nicht als Ursache und Wirkung belegt.")
        #expect(german.chart.series.map(\.title).contains("Blood pressure (systolisch)"))
        // The numbers are the same in every language.
        #expect(try message("range", "bp", in: german).figures == (try message("range", "bp", in: try await insights(recorded: true)).figures))
    }

    @Test func theChartHasOneBarPerDayAndSeriesOnItsOwnAxis() async throws {
        let chart = try await insights().chart
        #expect(chart.groups.map(\.identifier) == Self.week.map(\.description))
        func series(_ title: String) throws -> ChartSeries { try #require(chart.series.first { $0.title == title }) }
        #expect(chart.series.map(\.title) == [
            "Z-Cure", "Ibuprofen", "Walk", "Pain", "Blood pressure (systolic)", "Blood pressure (diastolic)", "Slept well",
        ])
        #expect(close(try series("Z-Cure").values, [100, 50, 0, 100, 0, 200.0 / 3, 100]))
        #expect(try series("Walk").values == [100, nil, 0, nil, 0, nil, nil])
        let ibuprofen = try series("Ibuprofen")
        #expect(ibuprofen.measure == .taken && ibuprofen.values == [0, 1, 0, 0, 2, 0, 0] && ibuprofen.axis.maximum == 2)
        let pain = try series("Pain")
        #expect(pain.axis.minimum == 0 && pain.axis.maximum == 10)
        #expect(pain.normalized == [0.6, 0.7, 0.8, 0.3, 0.8, 0.7, 0.2])
        let systolic = try series("Blood pressure (systolic)")
        #expect(systolic.values == [135, 142, nil, 138, nil, 128, 131] && systolic.unit == "mmHg" && systolic.axis.maximum == 200)
        #expect(try series("Blood pressure (diastolic)").axis.maximum == 100)
        #expect(try series("Slept well").values == [100, 0, 100, nil, nil, nil, nil])
    }

    /// On Thursday at noon the window is the 7 days up to today (Fri 16 – Thu 22, the plan
    /// starting Mon 19), and Thursday's 14:00 and 21:30 doses, recorded as taken, count before
    /// they are due: Mon 2/2, Tue 1/2, Wed 0/2, Thu 3/3 = 6 of 9.
    @Test func midWeekTheWindowEndsTodayAndOnlyWhatIsDueCounts() async throws {
        try await recordTheWeek()
        let thursdayNoon = Self.day(3).date(at: TimeOfDay("12:00")!, in: Self.zone)
        let rules = try await store.plan.info().insights
        let read = Insights.daysToRead(for: Self.week, rules: rules)
        let insights = Insights(
            days: Self.week, events: try await store.outcomes.events(from: read.lowerBound, through: read.upperBound), rules: rules,
            timeZone: Self.zone, now: thursdayNoon, language: english)
        let zcure = try message("adherence", "zcure", in: insights)
        #expect(figure("completed", of: zcure) == 6 && figure("due", of: zcure) == 9)
        #expect(zcure.days == (0...3).map(Self.day))
        // Later days count only what has an outcome: Fri nothing, Sat 2 done and 1 "not taken",
        // Sun 2 done.
        #expect(close(try #require(insights.chart.series.first { $0.activity == "zcure" }).values, [100, 50, 0, 100, nil, 200.0 / 3, 100]))
    }

    @Test func weeksOfAMonthGroupTheDays() async throws {
        try await recordTheWeek()
        let october = CalendarDay("2026-10-01")!...CalendarDay("2026-10-31")!
        let events = try await store.outcomes.events(from: october.lowerBound, through: october.upperBound)
        let insights = Insights(
            days: october, events: events, rules: try await store.plan.info().insights, timeZone: Self.zone, now: Self.now,
            grouping: .week, language: english)
        #expect(insights.chart.groups.map(\.identifier) == ["2026-W40", "2026-W41", "2026-W42", "2026-W43", "2026-W44"])
        let zcure = try #require(insights.chart.series.first { $0.activity == "zcure" })
        // Nothing before the plan; the week as above (10 of 17); nothing due after now.
        #expect(close(zcure.values, [nil, nil, nil, 1000.0 / 17, nil]))
    }

    @Test func anEmptyRecordHasNoAlertsAndEmptyBars() async throws {
        try await store.core.plan.load(try Self.plan(zcureTimes: ["08:00"]), effectiveFrom: Self.day(0), device: "t")
        let before = Self.day(0).start(in: Self.zone).addingTimeInterval(-1)
        let events = try await store.outcomes.events(from: Self.week.lowerBound, through: Self.week.upperBound)
        let insights = Insights(days: Self.week, events: events, rules: .standard, timeZone: Self.zone, now: before, language: english)
        #expect(insights.messages.isEmpty)
        #expect(insights.chart.series.allSatisfy { series in series.values.allSatisfy { $0 == nil || $0 == 0 } })
    }
}
