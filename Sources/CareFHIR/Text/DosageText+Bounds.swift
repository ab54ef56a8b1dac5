import CarePlan
import Foundation

extension DosageText {
    /// `30 minutes` or `30 to 60 minutes`.
    func span(_ low: Decimal?, _ high: Decimal?, _ unit: TimeUnit?) -> String? {
        guard let low, let unit else { return nil }
        guard let high, high != low else { return amount(low, language.phrase(["timeUnits", unit.rawValue], count: low)) }
        return amount(from: low, to: high, language.phrase(["timeUnits", unit.rawValue], count: high))
    }

    /// `for 10 days`, `for 5 to 10 days`, `from 2016-08-01 to 2016-08-31`; for a single dose
    /// (`once`) the day it is due: `on 2016-08-01`.
    func bounds(_ r: Timing.Repeat?, once: Bool = false) -> String? {
        if let duration = r?.boundsDuration {
            return span(duration.value, nil, try? TimeUnit.parse(quantity: duration, at: ""))
                .map { language.phrase(["forDuration"], ["duration": $0]) }
        }
        if let range = r?.boundsRange, let any = range.high ?? range.low {
            let unit = try? TimeUnit.parse(quantity: any, at: "")
            switch (range.low?.value, range.high?.value) {
            case let (low?, nil): return span(low, nil, unit).map { language.phrase(["forAtLeast"], ["duration": $0]) }
            case let (nil, high?): return span(high, nil, unit).map { language.phrase(["forUpTo"], ["duration": $0]) }
            case let (low, high): return span(low, high, unit).map { language.phrase(["forDuration"], ["duration": $0]) }
            }
        }
        let start = r?.boundsPeriod?.start.flatMap(FHIRDateTime.init).map(date)
        let end = r?.boundsPeriod?.end.flatMap(FHIRDateTime.init).map(date)
        switch (start, end) {
        case let (start?, _) where once: return language.phrase(["on"], ["day": start])
        case let (start?, end?): return language.phrase(["fromTo"], ["start": start, "end": end])
        case let (start?, nil): return language.phrase(["from"], ["start": start])
        case let (nil, end?): return language.phrase(["until"], ["end": end])
        default: return nil
        }
    }

    /// A date as this language writes it (the date as given, without converting time zones).
    func date(_ value: FHIRDateTime) -> String {
        let (year, month, day) = value.day.components
        return language.phrase(["date"], ["year": String(year), "month": String(format: "%02d", month), "day": String(format: "%02d", day)])
    }

    /// `10 times in all`, `10 to 12 times in all`.
    func count(_ r: Timing.Repeat?) -> String? {
        guard let count = r?.count else { return nil }
        guard let max = r?.countMax, max != count else { return language.phrase(["count"], count: Decimal(count)) }
        return language.phrase(["countRange"], count: Decimal(max), ["low": "\(count)", "high": "\(max)"])
    }

    /// `when required`, `when required for pain`: the reason in this language when its code is
    /// known, else as running text.
    func asNeeded(_ dosage: Dosage) -> String? {
        if let concept = dosage.asNeededCodeableConcept,
           let reason = coded(concept, in: "reasons") ?? concept.displayName.map(language.runningText) {
            return language.phrase(["asNeededFor"], ["reason": reason])
        }
        return dosage.isAsNeeded ? language.phrase(["asNeeded"]) : nil
    }

    /// `at most 6 tablets a day`, `at most 4 tablets in 12 hours`; `less than 6 tablets a day`
    /// for a maximum below its value.
    func maximum(_ ratio: Ratio?) -> String? {
        guard var ratio else { return nil }
        let comparator = ratio.numerator?.comparator
        ratio.numerator?.comparator = Self.maximumComparator(comparator)
        return perTime(ratio).map { language.phrase([Self.maximumKey("maximum", comparator)], ["dose": $0]) }
    }

    /// A maximum's phrase: `KEYBelow` ("less than …") for `<`, else `KEY` ("at most …").
    static func maximumKey(_ key: String, _ comparator: String?) -> String {
        comparator == "<" ? key + "Below" : key
    }

    /// The comparator a maximum's quantity still shows once its phrase says "at most" or
    /// "less than": none for `<=` and `<`, any other as given.
    static func maximumComparator(_ comparator: String?) -> String? {
        comparator == "<" || comparator == "<=" ? nil : comparator
    }

    /// `6 tablets a day`, `4 tablets in 12 hours`: an amount per span of time; `nil` unless
    /// the denominator is a time.
    func perTime(_ ratio: Ratio) -> String? {
        guard let numerator = ratio.numerator, let dose = quantity(numerator), let denominator = ratio.denominator,
              let unit = try? TimeUnit.parse(quantity: denominator, at: "") else { return nil }
        let value = denominator.value ?? 1
        if value == 1 { return language.phrase(["amountPer"], ["amount": dose, "per": language.phrase(["per", unit.rawValue])]) }
        let duration = amount(value, language.phrase(["timeUnits", unit.rawValue], count: value))
        return language.phrase(["amountIn"], ["amount": dose, "duration": duration])
    }
}
