import CareFHIR
import CarePlan
import Foundation

/// The doses a day a dosage implies, by the rules a pharmacist reads it with, written apart
/// from CareSync's scheduler so that each checks the other:
///
/// - nothing is due for an order taken as needed, or without timing, or outside its bounds
///   (`boundsPeriod`, else from the order's date; `boundsDuration` from the start);
/// - a timing code (QD, BID, TID, QID, QOD, AM, PM, HS) as its frequency per period;
/// - `frequency` per `period` in a day or less: frequency × the periods in a day, rounded;
/// - a period of whole days: `frequency` on every period-th day from the start;
/// - 2 to 6 times a week without days: Monday and Thursday; Monday, Wednesday and Friday;
///   Monday, Tuesday, Thursday and Friday; Monday to Friday; Monday to Saturday;
/// - named times (`when`, `timeOfDay`) without a frequency: one dose at each; with a
///   smaller frequency, the frequency.
///
/// Orders whose dosages follow one another (different `sequence`) are left to the rows of
/// Docs/dosage-instructions.md: `nil`.
struct ExpectedDoses {
    private var perDay: (CalendarDay) -> Int

    init?(order: ImportedOrder, zone: TimeZone, today: CalendarDay) {
        guard Set(order.dosages.map(\.sequence)).count <= 1 else { return nil }
        let start = order.authoredOn?.day(in: zone) ?? today
        let rules = order.dosages.map { Self.rule($0, start: start, zone: zone) }
        perDay = { day in rules.reduce(0) { $0 + $1(day) } }
    }

    func doses(on day: CalendarDay) -> Int { perDay(day) }

    private static func rule(_ dosage: Dosage, start orderStart: CalendarDay, zone: TimeZone) -> (CalendarDay) -> Int {
        guard !dosage.isAsNeeded, let timing = dosage.timing,
              let r = timing.repeat ?? timing.code?.coding?.first?.code.flatMap({ codes[$0] }) else { return { _ in 0 } }
        let start = r.boundsPeriod?.start.flatMap(FHIRDateTime.init)?.day(in: zone) ?? orderStart
        var end = r.boundsPeriod?.end.flatMap(FHIRDateTime.init)?.lastDay(in: zone)
        if let days = r.boundsDuration.flatMap(days) { end = start.adding(days: days - 1) }
        let named = (r.when?.count ?? 0) + (r.timeOfDay?.count ?? 0)
        let minutes = r.period.map { NSDecimalNumber(decimal: $0).doubleValue * unitMinutes(r.periodUnit) }
        return { day in
            guard day >= start, end.map({ day <= $0 }) ?? true else { return 0 }
            guard let frequency = r.frequency else { return named }
            guard let minutes else { return 0 }
            if minutes <= 1440 { return min(named > 0 ? named : .max, Int((Double(frequency) * 1440 / minutes).rounded())) }
            if minutes == 10_080, let days = weekly[frequency] { return days.contains(day.weekday) ? 1 : 0 }
            let stride = Int((minutes / 1440).rounded())
            return start.distance(to: day) % stride == 0 ? frequency : 0
        }
    }

    /// Timing codes as frequency per period.
    static let codes: [String: Timing.Repeat] = [
        "QD": .init(frequency: 1, period: 1, periodUnit: "d"), "BID": .init(frequency: 2, period: 1, periodUnit: "d"),
        "TID": .init(frequency: 3, period: 1, periodUnit: "d"), "QID": .init(frequency: 4, period: 1, periodUnit: "d"),
        "QOD": .init(frequency: 1, period: 2, periodUnit: "d"), "AM": .init(frequency: 1, period: 1, periodUnit: "d"),
        "PM": .init(frequency: 1, period: 1, periodUnit: "d"), "HS": .init(frequency: 1, period: 1, periodUnit: "d"),
    ]

    static let weekly: [Int: Set<Weekday>] = [
        2: [.monday, .thursday], 3: [.monday, .wednesday, .friday], 4: [.monday, .tuesday, .thursday, .friday],
        5: [.monday, .tuesday, .wednesday, .thursday, .friday], 6: [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday],
    ]

    private static func unitMinutes(_ unit: String?) -> Double {
        ["s": 1.0 / 60, "min": 1, "h": 60, "d": 1440, "wk": 10_080, "mo": 43_200, "a": 525_600][unit ?? "d"] ?? 1440
    }

    private static func days(_ duration: Quantity) -> Int? {
        guard let value = duration.value else { return nil }
        return Int((NSDecimalNumber(decimal: value).doubleValue * unitMinutes(duration.code ?? "d") / 1440).rounded(.up))
    }
}
