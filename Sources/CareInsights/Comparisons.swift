import CarePlan

/// An assessment's mean value on the days an intervention was done in full against the days
/// it was not, for each pair the rules name: a difference seen together, not a cause.
struct Comparisons {
    let record: InsightRecord
    let rules: InsightRules
    let wording: InsightWording
    let days: ClosedRange<CalendarDay>

    /// The fewest days on each side that a comparison rests on.
    static let fewestDays = 2

    var messages: [InsightMessage] {
        rules.comparisons.compactMap { pair in
            guard let intervention = record.activity(pair.intervention),
                  let assessment = record.activity(pair.assessment) else { return nil }
            return compare(intervention, assessment)
        }
    }

    func compare(_ intervention: Activity, _ assessment: Activity) -> InsightMessage? {
        var done: [(CalendarDay, Double)] = []
        var other: [(CalendarDay, Double)] = []
        for day in days {
            let taken = record.day(day, of: intervention)
            let numbers = record.day(day, of: assessment).numbers(nil)
            guard taken.counted > 0, !numbers.isEmpty else { continue }
            let value = numbers.reduce(0, +) / Double(numbers.count)
            if taken.missed == 0 { done.append((day, value)) } else { other.append((day, value)) }
        }
        guard done.count >= Self.fewestDays, other.count >= Self.fewestDays else { return nil }
        let doneMean = done.map(\.1).reduce(0, +) / Double(done.count)
        let otherMean = other.map(\.1).reduce(0, +) / Double(other.count)
        let unit = assessment.result?.unit
        return InsightMessage(
            kind: .comparison, rule: "comparison", activities: [intervention.identifier, assessment.identifier],
            title: wording.comparisonTitle(intervention, assessment),
            text: wording.comparison(intervention, assessment, done: (done.count, doneMean), other: (other.count, otherMean), unit: unit),
            days: (done + other).map(\.0).sorted(),
            figures: [
                Figure("days done in full", Double(done.count)), Figure("mean on those days", doneMean, unit: unit),
                Figure("other days", Double(other.count)), Figure("mean on other days", otherMean, unit: unit),
                Figure("difference", doneMean - otherMean, unit: unit),
            ])
    }
}
