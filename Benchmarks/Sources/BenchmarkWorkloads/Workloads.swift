import CarePlan
import Foundation

/// The plans and answers every benchmark measures with, one definition for `caresync-bench`
/// and the package-benchmark suites alike.
public enum Workloads {
    /// A plan of `count` activities with every schedule form: twice daily, weekly counts,
    /// every other day, three weekdays; every fifth an assessment on a scale.
    public static func plan(activities count: Int, start: CalendarDay, prefix: String = "a") throws -> Plan {
        let times = ["08:00", "12:00", "18:00", "22:00"].map { TimeOfDay($0)! }
        let activities = try (0..<count).map { n -> Activity in
            let id = String(format: "%@%04d", prefix, n)
            let schedule: Schedule = switch n % 4 {
            case 0: try .daily(times: Array(times.prefix(2)), start: start)
            case 1: try .weekly([0, 2, 1, 2, 1, 2, 0], start: start)
            case 2: try .daily(occurrences: 1, times: [times[0]], start: start, daysToSkip: 1)
            default: try .daily(occurrences: 2, start: start, weekdays: [.monday, .wednesday, .friday])
            }
            return n % 5 == 4
                ? try Activity(identifier: id, kind: .assessment, title: "Assessment \(n)", result: .scale(min: 0, max: 10), schedule: schedule)
                : try Activity(identifier: id, groupIdentifier: "g\(n % 7)", kind: .intervention, title: "Intervention \(n)",
                               tags: ["t\(n % 3)"], schedule: schedule)
        }
        return try Plan(title: "Benchmark", timeZone: TimeZone(identifier: "Europe/Vienna")!, activities: activities)
    }

    /// A plausible answer to an assessment asking for `result` (none for an intervention): the
    /// middle of a scale; for a number, one for each component, inside its unit's plausible
    /// range and falling from one component to the next (a systolic over its diastolic).
    public static func answer(to result: ResultKind?) -> [OutcomeValue] {
        switch result {
        case nil: return []
        case .scale(let min, let max, _, _)?: return [OutcomeValue(.integer((min + max) / 2))]
        case .number(let unit, let components)?:
            let known = QuantityUnit(unit), range = known?.plausible ?? 0...140
            let count = max(1, components.count)
            return (0..<count).map { index in
                let number = range.lowerBound + (range.upperBound - range.lowerBound) * Double(count - index) / Double(count + 1)
                return OutcomeValue(
                    .decimal(known?.rounded(number) ?? number), unit: unit, kind: components.indices.contains(index) ? components[index] : nil)
            }
        case .boolean?: return [OutcomeValue(.boolean(true))]
        case .text?: return [OutcomeValue(.text("as usual"))]
        }
    }
}
