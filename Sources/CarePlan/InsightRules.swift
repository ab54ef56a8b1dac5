/// What the insights of a plan look for: thresholds of the alerts, the comparisons to make
/// and the care team's tips. Every field has a default, so a plan without `insights` gets
/// the standard alerts (``standard``).
public struct InsightRules: Sendable, Hashable {
    /// Alert when a scheduled intervention's adherence over the last `days` days is below `below`.
    public var adherence: AdherenceRule
    /// Alert when an intervention had a missed dose on this many days running.
    public var missedDaysRunning: Int
    /// Values of assessments outside their normal range. An assessment none of them names,
    /// whose result has `systolic` and `diastolic` components, gets ``RangeRule/bloodPressure(_:)``.
    public var ranges: [RangeRule]
    /// Pairs of an intervention and an assessment whose values are compared between the days
    /// the intervention was done in full and the other days.
    public var comparisons: [Comparison]
    /// Messages from the care team, each shown in its own range of days.
    public var tips: [Tip]

    /// 80 % over 7 days, 2 days running, no ranges but the blood-pressure default, no
    /// comparisons, no tips.
    public static let standard = InsightRules()

    public init(
        adherence: AdherenceRule = AdherenceRule(), missedDaysRunning: Int = 2, ranges: [RangeRule] = [],
        comparisons: [Comparison] = [], tips: [Tip] = []
    ) {
        self.adherence = adherence
        self.missedDaysRunning = missedDaysRunning
        self.ranges = ranges
        self.comparisons = comparisons
        self.tips = tips
    }

    /// The range rules that apply to `activity`: its own, or the blood-pressure default when
    /// none names it and its result is a blood pressure.
    public func ranges(for activity: Activity) -> [RangeRule] {
        let own = ranges.filter { $0.activity == activity.identifier }
        guard own.isEmpty, case .number(_, let components)? = activity.result,
              components.contains("systolic"), components.contains("diastolic") else { return own }
        return RangeRule.bloodPressure(activity.identifier)
    }

    /// The rules without those that name an activity missing from `activities` (or of the
    /// other kind): what a plan of these activities can hold.
    public func naming(only activities: [Activity]) -> InsightRules {
        let kinds = Dictionary(activities.map { ($0.identifier, $0.kind) }, uniquingKeysWith: { first, _ in first })
        var rules = self
        rules.ranges = ranges.filter { kinds[$0.activity] == .assessment }
        rules.comparisons = comparisons.filter { kinds[$0.intervention] == .intervention && kinds[$0.assessment] == .assessment }
        return rules
    }
}

/// Adherence below `below` (a fraction) over the last `days` days.
public struct AdherenceRule: Sendable, Hashable {
    public var below: Double
    public var days: Int

    public init(below: Double = 0.8, days: Int = 7) {
        self.below = below
        self.days = days
    }
}

/// A value of an assessment (or one component of it) at or above `atOrAbove`, or at or below
/// `atOrBelow`, on at least `days` days.
public struct RangeRule: Sendable, Hashable {
    public var activity: String
    /// The component the rule looks at (`systolic`); `nil` for a result with one value.
    public var component: String?
    public var atOrAbove: Double?
    public var atOrBelow: Double?
    public var days: Int

    public init(activity: String, component: String? = nil, atOrAbove: Double? = nil, atOrBelow: Double? = nil, days: Int = 1) {
        self.activity = activity
        self.component = component
        self.atOrAbove = atOrAbove
        self.atOrBelow = atOrBelow
        self.days = days
    }

    /// 140/90 mmHg or higher on one day: the threshold of high blood pressure measured at a
    /// clinic in the ESC/ESH and NICE guidelines.
    public static func bloodPressure(_ activity: String) -> [RangeRule] {
        [RangeRule(activity: activity, component: "systolic", atOrAbove: 140),
         RangeRule(activity: activity, component: "diastolic", atOrAbove: 90)]
    }

    /// Whether `value` is outside the normal range.
    public func isOutside(_ value: Double) -> Bool {
        atOrAbove.map { value >= $0 } == true || atOrBelow.map { value <= $0 } == true
    }
}

/// Compares an assessment's values between the days an intervention was done in full and
/// the other days.
public struct Comparison: Sendable, Hashable {
    public var intervention: String
    public var assessment: String

    public init(intervention: String, assessment: String) {
        self.intervention = intervention
        self.assessment = assessment
    }
}

/// A message from the care team, shown from `from` through `until` (either open).
public struct Tip: Sendable, Hashable {
    public var identifier: String
    public var title: String
    public var text: String
    public var from: CalendarDay?
    public var until: CalendarDay?

    public init(identifier: String, title: String, text: String, from: CalendarDay? = nil, until: CalendarDay? = nil) {
        self.identifier = identifier
        self.title = title
        self.text = text
        self.from = from
        self.until = until
    }

    /// Whether the tip is shown on some day of `days`.
    public func overlaps(_ days: ClosedRange<CalendarDay>) -> Bool {
        (from ?? days.lowerBound) <= days.upperBound && (until ?? days.upperBound) >= days.lowerBound
    }
}
