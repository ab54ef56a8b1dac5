import CarePlan
import Foundation

/// The parts of a `Timing.repeat` that decide a schedule, checked and in CareSync's terms.
struct TimingPattern {
    var frequency: Int?
    var frequencyMax: Int?
    var period: Decimal?
    var periodMax: Decimal?
    var unit: TimeUnit?
    var weekdays: [Weekday]
    /// `timeOfDay`: clock times the order gives.
    var clock: [TimeOfDay]
    var events: [EventTiming]
    var offset: Int?
    /// Doses in all (`count`), if the order limits them.
    var count: Int?

    /// Reads `repeat` (merged over what `code` stands for) and checks every value it uses.
    init(_ given: Timing.Repeat?, code: CodeableConcept?, path: String) throws(FHIRError) {
        var merged = Timing.Repeat()
        // A code given as text alone that names no abbreviation is the order's words, not a
        // schedule: the mapper holds such an order for review and the sentence shows the text.
        if let code, code.textOnly == nil, let abbreviation = code.firstCode ?? code.text {
            guard let expanded = TimingAbbreviation.repeat(for: abbreviation) else {
                throw .unsupported(path: path + ".code", "timing code \"\(abbreviation)\"")
            }
            merged = expanded
        }
        let r = given ?? Timing.Repeat()
        let repeatPath = path + ".repeat"
        frequency = r.frequency ?? merged.frequency
        frequencyMax = r.frequencyMax
        period = r.period ?? merged.period
        periodMax = r.periodMax
        unit = try TimeUnit.parse(r.periodUnit ?? merged.periodUnit, at: repeatPath + ".periodUnit")
        if let frequency, frequency < 1 { throw .invalid(path: repeatPath + ".frequency", "must be at least 1, found \(frequency)") }
        if let frequencyMax, frequencyMax < (frequency ?? 1) {
            throw .invalid(path: repeatPath + ".frequencyMax", "must not be less than frequency")
        }
        if let period, period <= 0 { throw .invalid(path: repeatPath + ".period", "must be positive, found \(period)") }
        if period != nil, unit == nil { throw .invalid(path: repeatPath + ".periodUnit", "required with period") }
        weekdays = try (r.dayOfWeek ?? []).enumerated().map { index, code throws(FHIRError) in
            guard code.count == 3, let day = Weekday(name: code) else {
                throw .invalid(path: repeatPath + ".dayOfWeek[\(index)]", "expected mon, tue, wed, thu, fri, sat or sun, found \"\(code)\"")
            }
            return day
        }
        events = try (r.when ?? merged.when ?? []).enumerated().map { index, code throws(FHIRError) in
            guard let event = EventTiming(code: code) else {
                throw .unsupported(path: repeatPath + ".when[\(index)]", "event code \"\(code)\"")
            }
            return event
        }
        offset = r.offset
        if let offset, offset < 0 { throw .invalid(path: repeatPath + ".offset", "must not be negative, found \(offset)") }
        count = r.count
        if let count, count < 1 { throw .invalid(path: repeatPath + ".count", "must be at least 1, found \(count)") }
        clock = try (r.timeOfDay ?? []).enumerated().map { index, text throws(FHIRError) in
            guard text.count == 8, text.dropFirst(5).first == ":", let time = TimeOfDay(String(text.prefix(5))) else {
                throw .invalid(path: repeatPath + ".timeOfDay[\(index)]", "expected hh:mm:ss, found \"\(text)\"")
            }
            return time
        }
    }

    /// The clock times and the times of the `when` events in `routine`, sorted, each once.
    func times(in routine: DailyRoutine) -> [TimeOfDay] {
        Array(Set(clock + events.flatMap { $0.times(offset: offset, in: routine) })).sorted()
    }

    /// Whether the timing says anything about how often (a `count` alone is one dose a day).
    var hasPattern: Bool {
        frequency != nil || period != nil || count != nil || !clock.isEmpty || !events.isEmpty || !weekdays.isEmpty
    }

    /// Whether a frequency is given without a period (nor a code that gives one).
    var lacksPeriod: Bool { (frequency != nil || frequencyMax != nil) && period == nil }

    /// Whether the timing names when doses fall: times of day, day parts or days of the week.
    var namesWhen: Bool { !clock.isEmpty || !events.isEmpty || !weekdays.isEmpty }

    /// Whether the period is shorter than a day: doses around the clock, not over the waking day.
    var isInterval: Bool { unit.map { $0.minutes < TimeUnit.d.minutes } ?? false }

    /// Doses a day (`frequency` per `period`), and days from one dose to the next: the
    /// fewest doses of a range, or the most when `upper` is set (as-needed slots).
    ///
    /// The period is taken within 10⁻⁹…10¹² of its unit: Foundation's `Decimal` traps when a
    /// product leaves its range (a period of 10⁻¹⁰⁰ s did; found by fuzz-fhir-import), and
    /// either end is far beyond any dose (the schedule then refuses or rounds it, and says so).
    func rate(upper: Bool) -> (perDay: Decimal, daysBetween: Decimal) {
        let period = min(max((upper ? self.period : periodMax ?? self.period) ?? 1, Decimal(sign: .plus, exponent: -9, significand: 1)),
                         Decimal(sign: .plus, exponent: 12, significand: 1))
        let frequency = Decimal((upper ? frequencyMax ?? self.frequency : self.frequency) ?? max(1, clock.count + events.map(\.parts.count).reduce(0, +)))
        let minutes = period * (unit ?? .d).minutes
        return (frequency * 1440 / minutes, minutes / (frequency * 1440))
    }
}
