import CarePlan

/// Doses taken per group of days, drawn as bars in the terminal.
struct AdherenceChart {
    struct Group: Encodable {
        var group: String
        var taken: Int
        /// Doses scheduled; `nil` for as-needed doses, which are only counted.
        var scheduled: Int?
    }

    /// The width of a full bar in characters.
    static let width = 20

    var groups: [Group]

    init(grouping: DayGrouping, first: CalendarDay, last: CalendarDay, doses: [Event]) {
        groups = grouping.groups(from: first, through: last).map { identifier, days in
            let inGroup = doses.filter { days.contains($0.key.day) }
            let scheduled = inGroup.filter { !$0.activity.schedule.asNeeded }.count
            return Group(
                group: identifier, taken: inGroup.filter { $0.state == .completed }.count,
                scheduled: inGroup.isEmpty || scheduled > 0 ? scheduled : nil)
        }
    }

    /// `2016-W34  ████████████░░░░░░░░  12/20  60%`: each group, empty ones included.
    var lines: [String] {
        let widest = groups.map(\.group.count).max() ?? 0
        let mostTaken = max(1, groups.map(\.taken).max() ?? 1)
        return groups.map { group in
            let label = group.group.padding(toLength: widest, withPad: " ", startingAt: 0)
            let fraction = group.scheduled.map { $0 == 0 ? 0 : Double(group.taken) / Double($0) }
                ?? Double(group.taken) / Double(mostTaken)
            let filled = Int((fraction * Double(Self.width)).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: Self.width - filled)
            let figures = switch group.scheduled {
            case 0?: "no doses"
            case let scheduled?: "\(group.taken)/\(scheduled)  \(Int((fraction * 100).rounded()))%"
            case nil: "\(group.taken) taken"
            }
            return "\(label)  \(bar)  \(figures)"
        }
    }
}
