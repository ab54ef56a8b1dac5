import CarePlan
import Foundation

/// Turns one dosage instruction's timing into a schedule, reporting what it cannot do exactly.
///
/// Every dose that is due gets a time: the order's own (`timeOfDay`, `when` in the patient's
/// routine), else the routine's standard administration times (doses a day) or interval
/// times (every few hours around the clock). As-needed slots have none: nothing is due.
struct DosageScheduler {
    /// As-needed doses without any frequency get this many slots a day.
    static let asNeededSlotsPerDay = 4

    /// The first day of schedules whose bounds give none (the order's date, else today).
    var start: CalendarDay
    var today: CalendarDay
    var timeZone: TimeZone
    var routine: DailyRoutine

    /// The schedule of `dosage` (`nil` if none of its events is left to schedule) and warnings.
    func schedule(_ dosage: Dosage, at path: String) throws(FHIRError) -> (Schedule?, [ImportWarning]) {
        var warnings: [ImportWarning] = []
        let path = path + ".timing"
        let timing = dosage.timing
        let pattern = try TimingPattern(timing?.repeat, code: timing?.code, path: path)
        let bounds = try ScheduleBounds(timing?.repeat, start: start, timeZone: timeZone, path: path + ".repeat", warnings: &warnings)
        // Bounds that end before the order's date (a start of their own after their end is malformed).
        if let end = bounds.end, end < bounds.start, timing?.repeat?.boundsPeriod?.start == nil {
            warnings.append(.init(.historical, at: path + ".repeat.boundsPeriod.end", "ended on \(end), before \(bounds.start), the day it would start: a record of the past, not scheduled"))
            return (nil, warnings)
        }
        let asNeeded = dosage.isAsNeeded
        if let events = timing?.event, !events.isEmpty, !pattern.hasPattern {
            let built = try EventListScheduler(today: today, timeZone: timeZone, routine: routine)
                .schedule(events, asNeeded: asNeeded, at: path + ".event", warnings: &warnings)
            return (built, warnings)
        }
        let built: Schedule
        do throws(ScheduleError) {
            // A frequency alone says how often, not in what time: as without timing, nothing is due.
            let incomplete = !asNeeded && pattern.lacksPeriod && !pattern.namesWhen
            if !pattern.hasPattern || incomplete {
                if incomplete {
                    warnings.append(.init(.incomplete, at: path + ".repeat.period", "a frequency without a period: the order is incomplete; doses can be recorded, none is due"))
                } else if !asNeeded {
                    warnings.append(.init(.unscheduled, at: path, "no timing: doses can be recorded, none is due"))
                }
                built = try .daily(occurrences: Self.asNeededSlotsPerDay, start: bounds.start, end: bounds.end, asNeeded: true)
            } else {
                built = try repeating(pattern, dosage: dosage, bounds: bounds, path: path, warnings: &warnings)
            }
        } catch {
            throw .invalid(path: path, error.description)
        }
        return (built, warnings)
    }

    private func repeating(
        _ given: TimingPattern, dosage: Dosage, bounds: ScheduleBounds, path: String, warnings: inout [ImportWarning]
    ) throws(ScheduleError) -> Schedule {
        var pattern = given
        let asNeeded = dosage.isAsNeeded
        let r = dosage.timing?.repeat
        if !asNeeded, pattern.lacksPeriod {
            warnings.append(.init(.incomplete, at: path + ".repeat.period", "a frequency without a period: read as a day, since the order names when"))
        }
        if !asNeeded, pattern.frequencyMax != nil || pattern.periodMax != nil {
            warnings.append(.init(.range, at: path + ".repeat", "a range: scheduled at its fewest doses"))
        }
        let rate = pattern.rate(upper: asNeeded)
        var perDay = 1
        var stride = 1
        if pattern.unit.map({ !$0.isExact }) == true {
            warnings.append(.init(.inexact, at: path + ".repeat.periodUnit", "months and years vary in length: scheduled every \(Self.rounded(rate.daysBetween)) days"))
        }
        if !pattern.weekdays.isEmpty, pattern.unit == .wk {
            let frequency = pattern.frequency ?? pattern.weekdays.count
            let weeks = pattern.period ?? 1
            perDay = max(1, frequency / pattern.weekdays.count)
            if weeks > 1, weeks.isWhole, pattern.weekdays.count == 1 { stride = 7 * Self.rounded(weeks) }
            if frequency % pattern.weekdays.count != 0 || (weeks != 1 && stride == 1) {
                warnings.append(.init(.inexact, at: path + ".repeat", "the frequency does not match the days of the week: scheduled \(perDay) each day, every week"))
            }
        } else if !asNeeded, pattern.weekdays.isEmpty, let days = Self.weekdays(spreading: pattern) {
            pattern.weekdays = days
            let names = days.map { $0.name.capitalized }
            warnings.append(.init(.interpreted, at: path + ".repeat", "\(days.count) times a week without days of the week: scheduled on \(names.dropLast().joined(separator: ", ")) and \(names.last!)"))
        } else if rate.perDay > 1 {
            perDay = Self.rounded(rate.perDay)
            if !rate.perDay.isWhole {
                warnings.append(.init(.inexact, at: path + ".repeat", "an interval of \(Self.minutes(1440 / rate.perDay)) does not fit a day: scheduled \(perDay) times a day"))
            }
        } else {
            stride = max(1, Self.rounded(rate.daysBetween))
            if !rate.daysBetween.isWhole, pattern.unit?.isExact != false {
                warnings.append(.init(.inexact, at: path + ".repeat", "an interval of \(Self.minutes(rate.daysBetween * 1440)) does not fit whole days: scheduled every \(stride) days"))
            }
        }
        // Before any times are placed: a day has 1440 minutes, and a schedule at most so many doses.
        guard perDay <= Schedule.maximumOccurrencesPerDay else { throw .occurrencesOutOfRange(perDay) }
        var times = pattern.times(in: routine)
        if !asNeeded, pattern.frequency != nil, times.count > perDay, rate.perDay.isWhole || rate.perDay < 1 {
            let chosen = Self.spread(perDay, over: times.count).map { times[$0] }
            warnings.append(.init(.interpreted, at: path + ".repeat.when", "\(perDay) \(perDay == 1 ? "dose" : "doses") a day at \(times.count) times named: scheduled at \(chosen.map(\.description).joined(separator: " and ")), spread over them from the first (twice a day before meals: before breakfast and dinner)"))
            times = chosen
        }
        if times.count == 1, perDay > 1, rate.perDay.isWhole, (1440 / rate.perDay).isWhole {
            let step = Self.rounded(1440 / rate.perDay)
            times = (0..<perDay).map { times[0].adding(minutes: $0 * step) }.sorted()
        } else if !asNeeded, times.count < perDay {
            if !times.isEmpty {
                warnings.append(.init(.inexact, at: path + ".repeat", "\(perDay) doses a day but \(times.count) times given: the others at standard times"))
            }
            times = routine.times(completing: times, to: perDay, interval: pattern.isInterval && perDay > 1).sorted()
        }
        perDay = max(perDay, times.count)
        var first = bounds.start
        var weekdays = Set(pattern.weekdays)
        if stride > 1, weekdays.count == 1 {
            while first.weekday != pattern.weekdays[0] { first = first.adding(days: 1) }
            weekdays = []
        } else if stride > 1, !weekdays.isEmpty {
            warnings.append(.init(.inexact, at: path + ".repeat.dayOfWeek", "several days of the week every \(stride) days: scheduled every week"))
            stride = 1
        }
        if let countMax = r?.countMax, countMax != r?.count {
            warnings.append(.init(.range, at: path + ".repeat.countMax", "a range of counts: scheduled \(r?.count ?? countMax) in all"))
        }
        return try .daily(
            occurrences: perDay, times: times, start: first, end: bounds.end, daysToSkip: stride - 1,
            weekdays: weekdays.isEmpty ? nil : weekdays, totalCount: r?.count ?? r?.countMax, asNeeded: asNeeded)
    }

    /// The days a pharmacist gives a dose N times a week when the order names none.
    static let weeklyDays: [Int: [Weekday]] = [
        2: [.monday, .thursday], 3: [.monday, .wednesday, .friday], 4: [.monday, .tuesday, .thursday, .friday],
        5: [.monday, .tuesday, .wednesday, .thursday, .friday], 6: [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday],
    ]

    /// The days of the week for 2 to 6 doses a week (one period of exactly a week).
    static func weekdays(spreading pattern: TimingPattern) -> [Weekday]? {
        let period = pattern.period ?? 1
        guard let frequency = pattern.frequency, pattern.periodMax == nil,
              (pattern.unit == .wk && period == 1) || (pattern.unit == .d && period == 7) else { return nil }
        return weeklyDays[frequency]
    }

    /// `count` indices of `total` spread evenly, the first and (for two or more) the last included.
    static func spread(_ count: Int, over total: Int) -> [Int] {
        guard count > 1 else { return [0] }
        return (0..<count).map { ($0 * (total - 1) + (count - 1) / 2) / (count - 1) }
    }

    /// `value` to the nearest whole number, held within ±10⁹ so that no rate traps (a
    /// count the schedule cannot hold is then refused by it, with its reason).
    static func rounded(_ value: Decimal) -> Int {
        let double = NSDecimalNumber(decimal: value).doubleValue.rounded()
        guard !double.isNaN else { return 0 }
        return Int(min(max(double, -1e9), 1e9))
    }

    /// `5 hours` or `90 minutes`, for warnings.
    static func minutes(_ value: Decimal) -> String {
        let minutes = rounded(value)
        return minutes % 60 == 0 ? "\(minutes / 60) hours" : "\(minutes) minutes"
    }
}

extension Decimal {
    var isWhole: Bool { self == Decimal(NSDecimalNumber(decimal: self).intValue) }
}
