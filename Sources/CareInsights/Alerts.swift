import CarePlan

/// The alerts of a record: adherence below its threshold, doses missed days running, and
/// assessments outside their range.
struct Alerts {
    let record: InsightRecord
    let rules: InsightRules
    let wording: InsightWording
    /// The days the insights are about.
    let days: ClosedRange<CalendarDay>
    /// The last day of the adherence window: the last of `days`, or today if that is earlier.
    let windowEnd: CalendarDay

    var messages: [InsightMessage] {
        record.activities.flatMap { activity -> [InsightMessage] in
            switch activity.kind {
            case .intervention where !activity.schedule.asNeeded:
                [adherence(of: activity), missedRunning(of: activity)].compactMap { $0 }
            case .assessment:
                [outOfRange(activity)].compactMap { $0 }
            default:
                []
            }
        }
    }

    /// Adherence over the `rules.adherence.days` days ending on `windowEnd`, if below the threshold.
    func adherence(of activity: Activity) -> InsightMessage? {
        let rule = rules.adherence
        let window = Array(windowEnd.adding(days: 1 - rule.days)...windowEnd)
        let tally = window.map { record.day($0, of: activity) }.reduce(into: Tally()) {
            $0 = $0 + Tally(completed: $1.completed, total: $1.counted)
        }
        guard let fraction = tally.fraction, fraction < rule.below else { return nil }
        return InsightMessage(
            kind: .alert, rule: "adherence", activities: [activity.identifier],
            title: wording.adherenceTitle(activity),
            text: wording.adherence(tally: tally, days: rule.days, below: rule.below),
            days: window.filter { record.day($0, of: activity).counted > 0 },
            figures: [
                Figure("completed", Double(tally.completed)), Figure("due", Double(tally.total)),
                Figure("adherence", fraction), Figure("threshold", rule.below), Figure("days", Double(rule.days)),
            ])
    }

    /// The latest run of at least `rules.missedDaysRunning` days, each with a missed event.
    func missedRunning(of activity: Activity) -> InsightMessage? {
        // Days with nothing due (a weekly schedule's others) neither break a run nor extend it.
        var runs: [[ActivityDay]] = [[]]
        for day in days {
            let facts = record.day(day, of: activity)
            guard facts.counted > 0 else { continue }
            if facts.missed > 0 {
                runs[runs.count - 1].append(facts)
            } else if !runs[runs.count - 1].isEmpty {
                runs.append([])
            }
        }
        guard let run = runs.last(where: { $0.count >= rules.missedDaysRunning }) else { return nil }
        let missed = run.map(\.missed).reduce(0, +)
        return InsightMessage(
            kind: .alert, rule: "missedDaysRunning", activities: [activity.identifier],
            title: wording.missedTitle(activity), text: wording.missed(days: run.map(\.day), missed: missed),
            days: run.map(\.day),
            figures: [Figure("days", Double(run.count)), Figure("missed", Double(missed)),
                      Figure("threshold", Double(rules.missedDaysRunning))])
    }

    /// The assessment's rules that held on at least their number of days, in one message.
    func outOfRange(_ activity: Activity) -> InsightMessage? {
        let unit = activity.result?.unit
        var broken: [(rule: RangeRule, days: [CalendarDay], extreme: Double)] = []
        for rule in rules.ranges(for: activity) {
            var outside: [(CalendarDay, [Double])] = []
            for day in days {
                let numbers = record.day(day, of: activity).numbers(rule.component).filter(rule.isOutside)
                if !numbers.isEmpty { outside.append((day, numbers)) }
            }
            guard outside.count >= rule.days else { continue }
            let all = outside.flatMap(\.1)
            broken.append((rule, outside.map(\.0), rule.atOrAbove != nil ? all.max()! : all.min()!))
        }
        guard !broken.isEmpty else { return nil }
        let allDays = Set(broken.flatMap(\.days)).sorted()
        return InsightMessage(
            kind: .alert, rule: "range", activities: [activity.identifier],
            title: wording.rangeTitle(activity),
            text: wording.range(broken.map { ($0.rule, $0.days.count, $0.extreme) }, unit: unit, days: allDays.count),
            days: allDays,
            figures: broken.flatMap { item in
                let name = item.rule.component.map { "\($0) " } ?? ""
                return [Figure("\(name)days outside", Double(item.days.count)),
                        Figure("\(name)\(item.rule.atOrAbove != nil ? "highest" : "lowest")", item.extreme, unit: unit)]
                    + [item.rule.atOrAbove.map { Figure("\(name)at or above", $0, unit: unit) },
                       item.rule.atOrBelow.map { Figure("\(name)at or below", $0, unit: unit) }].compactMap { $0 }
            })
    }
}
