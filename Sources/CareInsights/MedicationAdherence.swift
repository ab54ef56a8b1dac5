import CarePlan

/// One medication's doses taken per group of days (year, month, ISO week or day), as
/// `meds show` charts them: every group of the range, empty ones too.
public struct MedicationAdherence: Sendable, Hashable {
    public struct Group: Sendable, Hashable, Encodable {
        public var group: String
        public var taken: Int
        /// Doses scheduled; `nil` for as-needed doses, which are only counted.
        public var scheduled: Int?
    }

    public var groups: [Group]
    /// How the days are grouped, and each group's days, for drawing it as a chart.
    let grouping: DayGrouping
    let chartGroups: [ChartGroup]

    /// `doses`: the medication's events from `first` through `last`; of an as-needed one,
    /// only those recorded.
    public init(grouping: DayGrouping, first: CalendarDay, last: CalendarDay, doses: [Event]) {
        self.grouping = grouping
        let ranges = grouping.groups(from: first, through: last)
        chartGroups = ranges.map { ChartGroup(identifier: $0.identifier, first: $0.days.lowerBound, last: $0.days.upperBound) }
        groups = ranges.map { identifier, days in
            let inGroup = doses.filter { days.contains($0.key.day) }
            let scheduled = inGroup.filter { !$0.activity.schedule.asNeeded }.count
            return Group(
                group: identifier, taken: inGroup.filter { $0.state == .completed }.count,
                scheduled: inGroup.isEmpty || scheduled > 0 ? scheduled : nil)
        }
    }

    /// Each group's bar from 0 to 1: taken / scheduled, or for as-needed doses taken / the
    /// most taken in any group.
    public var fractions: [Double] {
        let mostTaken = max(1, groups.map(\.taken).max() ?? 1)
        return groups.map { group in
            group.scheduled.map { $0 == 0 ? 0 : Double(group.taken) / Double($0) } ?? Double(group.taken) / Double(mostTaken)
        }
    }

    /// The same figures as a chart of one series, drawn as the insights' charts are: taken ÷
    /// scheduled in percent (no bar where nothing was due), or for as-needed doses the count
    /// taken, in `doses` (the word for them), on an axis from 0.
    public func chart(activity: String, title: String, doses: String) -> GroupedBarChart {
        let asNeeded = groups.allSatisfy { $0.scheduled == nil }
        let values = groups.map { group -> Double? in
            guard let scheduled = group.scheduled else { return Double(group.taken) }
            return scheduled == 0 ? nil : 100 * Double(group.taken) / Double(scheduled)
        }
        let series = ChartSeries(
            activity: activity, title: title, measure: asNeeded ? .taken : .adherence, unit: asNeeded ? doses : "%",
            axis: asNeeded ? .zero(through: values.compactMap { $0 }.max() ?? 0) : .percent, values: values)
        return GroupedBarChart(grouping: grouping, groups: chartGroups, series: [series])
    }
}
