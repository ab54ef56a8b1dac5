import CarePlan
import Foundation

/// Schedules an explicit `Timing.event` list: events before today are reported, and the
/// events left are scheduled as long as they repeat regularly (same times, same gap).
/// Events given as days without a time are due at the routine's standard times.
struct EventListScheduler {
    var today: CalendarDay
    var timeZone: TimeZone
    var routine: DailyRoutine

    func schedule(_ texts: [String], asNeeded: Bool, at path: String, warnings: inout [ImportWarning]) throws(FHIRError) -> Schedule? {
        var days: [CalendarDay: [TimeOfDay?]] = [:]
        var past: [String] = []
        for (index, text) in texts.enumerated() {
            guard let value = FHIRDateTime(text) else {
                throw .invalid(path: "\(path)[\(index)]", "expected a FHIR dateTime, found \"\(text)\"")
            }
            let day = value.day(in: timeZone)
            if day < today {
                past.append(text)
            } else {
                days[day, default: []].append(value.instant.map { TimeOfDay.containing($0, in: timeZone) })
            }
        }
        if !past.isEmpty {
            warnings.append(.init(.pastEvents, at: path, "\(past.count) of \(texts.count) events are before \(today) and are not scheduled: \(past.joined(separator: ", "))"))
        }
        let ordered = days.sorted { $0.key < $1.key }.map { (day: $0.key, times: $0.value.compactMap { $0 }.sorted(), count: $0.value.count) }
        guard let first = ordered.first else { return nil }
        let gap = ordered.count > 1 ? first.day.distance(to: ordered[1].day) : 1
        var regular = 1
        while regular < ordered.count, ordered[regular].times == first.times, ordered[regular].count == first.count,
              ordered[regular - 1].day.distance(to: ordered[regular].day) == gap {
            regular += 1
        }
        if regular < ordered.count {
            let dropped = ordered[regular...].map { "\($0.day)" }
            warnings.append(.init(.irregularEvents, at: path, "events do not repeat regularly after \(ordered[regular - 1].day): not scheduled on \(dropped.joined(separator: ", "))"))
        }
        let times = asNeeded ? first.times : routine.times(completing: first.times, to: first.count).sorted()
        do throws(ScheduleError) {
            return try .daily(
                occurrences: first.count, times: times, start: first.day, end: ordered[regular - 1].day,
                daysToSkip: gap - 1, asNeeded: asNeeded)
        } catch {
            throw .invalid(path: path, error.description)
        }
    }
}
