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

    /// `doses`: the medication's events from `first` through `last`; of an as-needed one,
    /// only those recorded.
    public init(grouping: DayGrouping, first: CalendarDay, last: CalendarDay, doses: [Event]) {
        groups = grouping.groups(from: first, through: last).map { identifier, days in
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
}
