import CarePlan

/// A short English line describing a schedule, for `plan show`.
struct ScheduleSummary: CustomStringConvertible {
    let schedule: Schedule

    init(_ schedule: Schedule) {
        self.schedule = schedule
    }

    var description: String {
        let counts = schedule.weeklyOccurrences
        let perDay = counts.max() ?? 0
        var parts: [String] = []
        if counts.allSatisfy({ $0 == 0 || $0 == perDay }) {
            parts.append("\(perDay)× a day")
            if counts.contains(0) {
                let days = Weekday.allCases.filter { counts[$0.rawValue] > 0 }
                parts.append("on " + days.map { String($0.name.prefix(3)).capitalized }.joined(separator: ", "))
            }
        } else {
            parts.append("weekly " + Weekday.allCases.map {
                "\(String($0.name.prefix(3)).capitalized) \(counts[$0.rawValue])"
            }.joined(separator: ", "))
        }
        if schedule.daysToSkip > 0 { parts.append("every \(schedule.daysToSkip + 1) days") }
        if !schedule.times.isEmpty { parts.append("at " + schedule.times.map(\.description).joined(separator: ", ")) }
        parts.append("from \(schedule.start)")
        if let end = schedule.end { parts.append("to \(end)") }
        if let total = schedule.totalCount { parts.append("\(total) in all") }
        return parts.joined(separator: " ")
    }
}
