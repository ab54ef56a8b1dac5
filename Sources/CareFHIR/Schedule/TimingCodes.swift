import CarePlan
import Foundation

/// UCUM units of time that FHIR timing uses.
enum TimeUnit: String, CaseIterable {
    case s, min, h, d, wk, mo, a

    /// Minutes in one unit; months and years are approximate (30 and 365 days).
    var minutes: Decimal {
        switch self {
        case .s: Decimal(1) / 60
        case .min: 1
        case .h: 60
        case .d: 1440
        case .wk: 10_080
        case .mo: 43_200
        case .a: 525_600
        }
    }

    /// Whether one unit always lasts the same time.
    var isExact: Bool { self != .mo && self != .a }

    static func parse(_ code: String?, at path: String) throws(FHIRError) -> TimeUnit? {
        guard let code else { return nil }
        guard let unit = TimeUnit(rawValue: code) else {
            throw .unsupported(path: path, "unit of time \"\(code)\"; use s, min, h, d, wk, mo or a")
        }
        return unit
    }
}

/// `Timing.code` abbreviations (HL7 v3 GTSAbbreviation), as the repeat they stand for.
enum TimingAbbreviation {
    static func `repeat`(for code: String) -> Timing.Repeat? {
        func every(_ frequency: Int, _ period: Decimal, _ unit: String) -> Timing.Repeat {
            Timing.Repeat(frequency: frequency, period: period, periodUnit: unit)
        }
        func at(_ when: String) -> Timing.Repeat {
            Timing.Repeat(frequency: 1, period: 1, periodUnit: "d", when: [when])
        }
        switch code.uppercased() {
        case "QD": return every(1, 1, "d")
        case "BID": return every(2, 1, "d")
        case "TID": return every(3, 1, "d")
        case "QID": return every(4, 1, "d")
        case "QOD": return every(1, 2, "d")
        case "Q1H": return every(1, 1, "h")
        case "Q2H": return every(1, 2, "h")
        case "Q3H": return every(1, 3, "h")
        case "Q4H": return every(1, 4, "h")
        case "Q6H": return every(1, 6, "h")
        case "Q8H": return every(1, 8, "h")
        case "Q12H": return every(1, 12, "h")
        case "WK": return every(1, 1, "wk")
        case "MO": return every(1, 1, "mo")
        case "AM": return at("MORN")
        case "PM": return at("EVE")
        case "BED", "QHS", "HS": return at("HS")
        default: return nil
        }
    }
}

extension CodeableConcept {
    /// A timing code's text when it has no code and its text is no abbreviation CareSync
    /// reads (`"in the morning on weekends"`, but not `"Q6H"`): words, not a schedule.
    var textOnly: String? {
        guard firstCode == nil, let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
              TimingAbbreviation.repeat(for: text) == nil else { return nil }
        return text
    }
}

/// What a `when` code means: a meal (before, with or after it) or another part of the day.
/// Its clock time comes from the patient's ``DailyRoutine``, the one table of such times.
struct EventTiming: Hashable {
    enum Relation: String { case before, with, after }
    enum Meal: String, CaseIterable {
        case breakfast, lunch, dinner
        var part: DayPart { switch self { case .breakfast: .breakfast; case .lunch: .lunch; case .dinner: .dinner } }
    }

    /// A meal code's relation and meals; `nil` for other day parts such as `MORN`.
    var meal: (relation: Relation, meals: [Meal])?
    /// The code, for times of day (its phrase's key).
    var code: String
    /// The day parts it stands for (the meals, or one part).
    var parts: [DayPart]
    /// +1: `offset` minutes after; -1: before.
    var direction: Int
    /// The offset when the timing gives none.
    var defaultOffset: Int

    static func == (lhs: EventTiming, rhs: EventTiming) -> Bool { lhs.code == rhs.code }
    func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// FHIR's day-part codes (R4 `EventTiming` and the v3 `TimingEvent` codes DSTU2 uses).
    static let dayParts: [String: (DayPart, Int)] = [
        "WAKE": (.wake, 1), "PHS": (.wake, 1), "MORN.early": (.earlyMorning, 1), "MORN": (.morning, 1),
        "MORN.late": (.lateMorning, 1), "NOON": (.noon, 1), "AFT.early": (.earlyAfternoon, 1), "AFT": (.afternoon, 1),
        "AFT.late": (.lateAfternoon, 1), "EVE.early": (.earlyEvening, 1), "EVE": (.evening, 1),
        "EVE.late": (.lateEvening, 1), "NIGHT": (.night, 1), "HS": (.bed, -1),
    ]

    init?(code: String) {
        self.code = code
        let meals: [String: [Meal]] = ["": Meal.allCases, "M": [.breakfast], "D": [.lunch], "V": [.dinner]]
        let relations: [String: (Relation, Int, Int)] = ["AC": (.before, -1, 30), "C": (.with, 1, 0), "PC": (.after, 1, 30)]
        if let (prefix, (relation, direction, offset)) = relations.first(where: { code.hasPrefix($0.key) }),
           let which = meals[String(code.dropFirst(prefix.count))] {
            meal = (relation, which)
            parts = which.map(\.part)
            self.direction = direction
            defaultOffset = offset
        } else if let (part, direction) = Self.dayParts[code] {
            meal = nil
            parts = [part]
            self.direction = direction
            defaultOffset = 0
        } else {
            return nil
        }
    }

    /// The times in `routine`, with `offset` (or the default) applied around the clock.
    func times(offset: Int?, in routine: DailyRoutine) -> [TimeOfDay] {
        parts.map { routine.time(of: $0).adding(minutes: direction * (offset ?? defaultOffset)) }
    }
}
