import CarePlan

/// CareKit's grouped bar chart: for each group of days (a day of a week, a week of a month),
/// one bar per series. Series differ in unit and scale, so each has its own axis, and its
/// bars are also given normalized to that axis (0 at its minimum, 1 at its maximum).
public struct GroupedBarChart: Sendable, Hashable, Encodable {
    public var grouping: DayGrouping
    public var groups: [ChartGroup]
    public var series: [ChartSeries]
}

/// One group of days on the chart's x axis.
public struct ChartGroup: Sendable, Hashable, Encodable {
    /// `2026-11-23` for a day, `2026-W48` for a week, as ``DayGrouping`` names them.
    public var identifier: String
    public var first: CalendarDay
    public var last: CalendarDay
}

/// One activity's bars (or one component's, for a blood pressure).
public struct ChartSeries: Sendable, Hashable, Encodable {
    public enum Measure: String, Sendable, Hashable, Encodable {
        /// Due events done, in percent.
        case adherence
        /// As-needed doses taken.
        case taken
        /// The mean of the values recorded.
        case mean
        /// Answers that were yes, in percent.
        case yes
        /// Counted in the group: a measurement's total (steps).
        case total
    }

    /// The activity, or for a series of measurements the ``MeasurementType``'s name.
    public var activity: String
    /// The type of a series of measurements (then not an activity's).
    public var measurement: MeasurementType?
    /// The component of a result with several (`systolic`).
    public var component: String?
    public var title: String
    public var measure: Measure
    /// `%`, `doses`, the result's unit (`mmHg`), or `nil` for a scale.
    public var unit: String?
    public var axis: ChartAxis
    /// One per group; `nil` where the group has nothing to show.
    public var values: [Double?]

    /// The values on the axis: 0 at its minimum, 1 at its maximum.
    public var normalized: [Double?] { values.map { $0.map(axis.normalize) } }

    enum CodingKeys: String, CodingKey { case activity, measurement, component, title, measure, unit, axis, values, normalized }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(activity, forKey: .activity)
        try c.encodeIfPresent(measurement, forKey: .measurement)
        try c.encodeIfPresent(component, forKey: .component)
        try c.encode(title, forKey: .title)
        try c.encode(measure, forKey: .measure)
        try c.encodeIfPresent(unit, forKey: .unit)
        try c.encode(axis, forKey: .axis)
        try c.encode(values, forKey: .values)
        try c.encode(normalized, forKey: .normalized)
    }
}

/// A series' own axis, with the labels of its ends (a scale's "none" and "worst").
public struct ChartAxis: Sendable, Hashable, Encodable {
    public var minimum: Double
    public var maximum: Double
    public var minimumLabel: String?
    public var maximumLabel: String?

    /// Its two ends as people read them, each a number (written by `number`) with its label:
    /// `0 (none)` and `10 (worst)`.
    public func ends(_ number: (Double) -> String) -> (low: String, high: String) {
        (number(minimum) + (minimumLabel.map { " (\($0))" } ?? ""), number(maximum) + (maximumLabel.map { " (\($0))" } ?? ""))
    }

    /// `value` from 0 at the minimum to 1 at the maximum, clamped.
    public func normalize(_ value: Double) -> Double {
        min(1, max(0, (value - minimum) / (maximum - minimum)))
    }

    /// From 0 to the first of 1, 2, 2.5, 5 × 10ⁿ at or above `largest` (at least 1).
    static func zero(through largest: Double) -> ChartAxis {
        var scale = 1.0
        while scale * 10 < largest { scale *= 10 }
        let top = [1, 2, 2.5, 5, 10].map { $0 * scale }.first { $0 >= largest } ?? scale * 10
        return ChartAxis(minimum: 0, maximum: max(1, top))
    }

    /// From 0 to 100 %.
    public static let percent = ChartAxis(minimum: 0, maximum: 100)
}

extension DayGrouping: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

extension GroupedBarChart {
    /// The chart of `record` over `days` by `grouping`: every activity but text assessments,
    /// then each type of the `measurements` (daily summaries) taken in those days.
    init(
        _ record: InsightRecord, measurements: [DailyMeasurement], days: ClosedRange<CalendarDay>, grouping: DayGrouping,
        wording: InsightWording
    ) {
        let groups = grouping.groups(from: days.lowerBound, through: days.upperBound).map {
            ChartGroup(identifier: $0.identifier, first: $0.days.lowerBound, last: $0.days.upperBound)
        }
        let measured = measurements.filter { days.contains($0.day) }
        self.init(
            grouping: grouping, groups: groups,
            series: record.activities.flatMap { Self.series(of: $0, in: record, groups: groups, wording: wording) }
                + MeasurementType.allCases.flatMap { type in
                    Self.series(of: type, measured.filter { $0.type == type }, groups: groups, wording: wording)
                })
    }

    /// A measurement type's bars: per group, the mean of its samples (a blood pressure's
    /// systolic and diastolic each), or the total of its steps; none if nothing was taken.
    private static func series(
        of type: MeasurementType, _ days: [DailyMeasurement], groups: [ChartGroup], wording: InsightWording
    ) -> [ChartSeries] {
        guard !days.isEmpty else { return [] }
        let perGroup = groups.map { group in days.filter { (group.first...group.last).contains($0.day) } }
        func make(_ component: String?, _ measure: ChartSeries.Measure, _ value: ([DailyMeasurement]) -> Double?) -> ChartSeries {
            let values = perGroup.map { $0.isEmpty ? nil : value($0) }
            let title = wording.measurement(type)
            return ChartSeries(
                activity: type.rawValue, measurement: type, component: component,
                title: component.map { wording.series(title, component: $0) } ?? title, measure: measure,
                unit: MeasurementType.readable(type.units[0]),
                axis: .zero(through: values.compactMap { $0 }.max() ?? 0), values: values)
        }
        /// The mean of every sample in the group, from the days' means and counts.
        func mean(_ dayMean: @escaping (DailyMeasurement) -> Double?) -> ([DailyMeasurement]) -> Double? {
            { days in
                let counted = days.compactMap { day in dayMean(day).map { ($0, Double(day.count)) } }
                let samples = counted.reduce(0) { $0 + $1.1 }
                return samples == 0 ? nil : counted.reduce(0) { $0 + $1.0 * $1.1 } / samples
            }
        }
        switch type {
        case .steps: return [make(nil, .total) { $0.compactMap(\.total).reduce(0, +) }]
        case .bloodPressure: return [make("systolic", .mean, mean(\.mean)), make("diastolic", .mean, mean(\.diastolicMean))]
        case .heartRate, .glucose: return [make(nil, .mean, mean(\.mean))]
        }
    }

    private static func series(
        of activity: Activity, in record: InsightRecord, groups: [ChartGroup], wording: InsightWording
    ) -> [ChartSeries] {
        let facts = groups.map { group in (group.first...group.last).map { record.day($0, of: activity) } }
        func make(_ component: String?, _ title: String, _ measure: ChartSeries.Measure, _ unit: String?,
                  _ axis: ChartAxis?, _ value: ([ActivityDay]) -> Double?) -> ChartSeries {
            let values = facts.map(value)
            return ChartSeries(
                activity: activity.identifier, component: component, title: title, measure: measure, unit: unit,
                axis: axis ?? .zero(through: values.compactMap { $0 }.max() ?? 0), values: values)
        }
        func mean(_ component: String?) -> ([ActivityDay]) -> Double? {
            { days in
                let numbers = days.flatMap { $0.numbers(component) }
                return numbers.isEmpty ? nil : numbers.reduce(0, +) / Double(numbers.count)
            }
        }
        switch (activity.kind, activity.result) {
        case (.intervention, _) where activity.schedule.asNeeded:
            return [make(nil, activity.title, .taken, wording.doses, nil) { Double($0.map(\.takenAsNeeded).reduce(0, +)) }]
        case (.intervention, _), (.assessment, nil):
            return [make(nil, activity.title, .adherence, "%", .percent) { days in
                let tally = days.reduce(Tally()) { $0 + Tally(completed: $1.completed, total: $1.counted) }
                return tally.fraction.map { $0 * 100 }
            }]
        case (.assessment, .scale(let low, let high, let lowLabel, let highLabel)?):
            let axis = ChartAxis(minimum: Double(low), maximum: Double(high), minimumLabel: lowLabel, maximumLabel: highLabel)
            return [make(nil, activity.title, .mean, nil, axis, mean(nil))]
        case (.assessment, .number(let unit, let components)?):
            guard !components.isEmpty else { return [make(nil, activity.title, .mean, unit, nil, mean(nil))] }
            return components.map { make($0, wording.series(activity.title, component: $0), .mean, unit, nil, mean($0)) }
        case (.assessment, .boolean?):
            return [make(nil, activity.title, .yes, "%", .percent) { days in
                let answers = days.flatMap { $0.numbers(nil) }
                return answers.isEmpty ? nil : answers.reduce(0, +) / Double(answers.count) * 100
            }]
        case (.assessment, .text?):
            return []
        }
    }
}
