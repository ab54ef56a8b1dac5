import CareLanguage
import CarePlan
import Foundation

/// Dosage instructions as a sentence, generated from the structured fields in the order it
/// reads: method, dose, rate, route, site, frequency and period, event timing, dates,
/// duration, count, bounds, as needed, maxima; then supplemental instructions and the
/// patient's own. `Dosage.text` is not used: it is shown beside the sentence, never instead.
public struct DosageText: Sendable {
    public var language: Language
    /// The zone that times of `Timing.event` are shown in (the patient's); as written without one.
    public var timeZone: TimeZone?

    public init(language: Language, timeZone: TimeZone? = nil) {
        self.language = language
        self.timeZone = timeZone
    }

    /// The sentence for `dosage`; parts the dosage does not give are left out.
    public func sentence(for dosage: Dosage) -> String {
        let timing = dosage.timing
        let r = timing?.repeat
        let pattern = try? TimingPattern(r, code: timing?.code, path: "")
        // A single dose has no frequency: "once only", on its day.
        let once = r?.count == 1 && (r?.countMax ?? 1) == 1
        let doseAndRate = dosage.doseAndRate?.first
        var parts: [String?] = [dose(doseAndRate), rate(doseAndRate), route(dosage.route), site(dosage.site)]
        if let pattern { parts += [once ? nil : frequency(pattern, asNeeded: dosage.isAsNeeded), eventTiming(pattern)] }
        // A timing in words alone, as the prescriber wrote it (the order is held for review).
        parts.append(timing?.code?.textOnly.map { language.runningText($0) })
        parts.append(eventDates(timing?.event))
        let unit = r?.durationUnit.flatMap(TimeUnit.init(rawValue:))
        parts.append(span(r?.duration, r?.durationMax, unit).map { language.phrase(["duration"], ["duration": $0]) })
        parts += [count(r), bounds(r, once: once), asNeeded(dosage)]
        var sentence = method(dosage.method, parts.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " "))
        let maxima = [maximum(dosage.maxDosePerPeriod), maximum(perDose: dosage.maxDosePerAdministration),
                      maximum(lifetime: dosage.maxDosePerLifetime)].compactMap { $0 }
        if !maxima.isEmpty {
            let joined = maxima.joined(separator: language.phrase(["maximumSeparator"]))
            sentence = sentence.isEmpty ? joined : sentence + language.phrase(["maximumSeparator"]) + joined
        }
        let notes = (dosage.additionalInstruction ?? []).compactMap(instruction) + [dosage.patientInstruction].compactMap { $0 }
        return ([sentence] + notes.map(note)).filter { !$0.isEmpty }.joined(separator: language.phrase(["noteSeparator"]))
    }

    /// The sentence for an order's dosages, as ``DosageSequence`` reads them: those that
    /// apply together (the same sequence) joined by "and", each later step by ", then"
    /// (scheduled or held), and those without a sequence after a "; ".
    public func sentence(for dosages: [Dosage]) -> String {
        var numbered = ""
        var unnumbered: [String] = []
        for step in DosageSequence(dosages).steps {
            let together = step.dosages.map { sentence(for: $0.dosage) }.joined(separator: language.phrase(["together"]))
            if step.sequence == nil {
                unnumbered.append(together)
            } else {
                numbered += (numbered.isEmpty ? "" : language.phrase(["then"])) + together
            }
        }
        return ([numbered].filter { !$0.isEmpty } + unnumbered).joined(separator: language.phrase(["beside"]))
    }

    func dose(_ dose: Dosage.DoseAndRate?) -> String? {
        if let quantity = dose?.doseQuantity { return self.quantity(quantity) }
        return dose?.doseRange.flatMap(range)
    }

    /// `1 to 2 tablets`; an open range `at least 1 tablet` or `up to 2 tablets`.
    func range(_ range: Range) -> String? {
        switch (range.low, range.high) {
        case let (low?, high?):
            guard let lowValue = low.value, let highValue = high.value else { return nil }
            return amount(from: lowValue, to: highValue, unit(high, count: highValue))
        case let (low?, nil): return quantity(low).map { language.phrase(["atLeast"], ["amount": $0]) }
        case let (nil, high?): return quantity(high).map { language.phrase(["upToAmount"], ["amount": $0]) }
        case (nil, nil): return nil
        }
    }

    /// `2 tablets`; `half a tablet` where the language has words for the amount of such a
    /// unit; with its comparator, `less than 3 tablets`.
    func quantity(_ quantity: Quantity) -> String? {
        guard let value = quantity.value else { return nil }
        let amount = inWords(value, of: quantity) ?? amount(value, unit(quantity, count: value))
        guard let comparator = quantity.comparator, language.entry(["comparators", comparator]) != nil else { return amount }
        return language.phrase(["comparators", comparator], ["amount": amount])
    }

    /// `2 tablets`: a number and a word already in the right form (the number alone without one).
    func amount(_ value: Decimal, _ word: String) -> String {
        amount(number: language.number(value), word)
    }

    /// `1 to 2 tablets`, `30 to 60 minutes`: a range of numbers and a word for the higher one.
    func amount(from low: Decimal, to high: Decimal, _ word: String) -> String {
        amount(number: language.phrase(["numberRange"], ["low": language.number(low), "high": language.number(high)]), word)
    }

    /// A number as written, with its word when it has one (never a trailing space).
    private func amount(number: String, _ word: String) -> String {
        word.isEmpty ? number : language.phrase(["quantity"], ["count": number, "unit": word])
    }

    /// A dose unit's word for `count`, by its code or name (`tablet`, `TAB`, `{tbl}`); an
    /// unknown unit is written as given.
    /// UCUM's unity (`1`) and a blank unit are no word at all.
    func unit(_ quantity: Quantity, count: Decimal) -> String {
        guard let key = unitKey(quantity) else {
            let given = [quantity.unit, quantity.code].lazy.compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
            return given == "1" ? "" : given ?? ""
        }
        return language.phrase(["units", key], count: count)
    }

    /// The language files' name of a dose unit (`tablet`), if they know it.
    func unitKey(_ quantity: Quantity) -> String? {
        let names = [quantity.code, quantity.unit].compactMap { $0?.lowercased() }
        return names.lazy.map { self.language.entry(["unitAliases", $0])?.string ?? $0 }
            .first { self.language.entry(["units", $0]) != nil }
    }

    func frequency(_ p: TimingPattern, asNeeded: Bool) -> String? {
        guard p.frequency != nil || p.frequencyMax != nil || p.period != nil else { return nil }
        let unit = (p.unit ?? .d).rawValue
        let upper = p.frequencyMax ?? p.frequency ?? 1
        // As needed, a single dose per period is its minimum interval: "every 4 hours when required".
        let times = if asNeeded, upper == 1 {
            language.phrase(["times"], count: 1)
        } else if asNeeded {
            language.phrase(["upTo"], ["times": language.phrase(["times"], count: Decimal(upper))])
        } else if let max = p.frequencyMax, let low = p.frequency {
            language.phrase(["timesRange"], count: Decimal(max), ["low": "\(low)", "high": "\(max)"])
        } else if p.frequencyMax != nil {
            language.phrase(["upTo"], ["times": language.phrase(["times"], count: Decimal(upper))])
        } else {
            language.phrase(["times"], count: Decimal(upper))
        }
        // A frequency without a period says how often, not in what time: nothing is invented.
        if p.lacksPeriod { return times }
        let period = p.period ?? 1
        // One dose an hour is "every hour"; one a day stays "once a day".
        if period == 1, p.periodMax == nil, !(upper == 1 && p.isInterval) {
            return language.phrase(["perPeriod"], ["times": times, "per": language.phrase(["per", unit])])
        }
        let every = p.periodMax.map { high in
            language.phrase(["everyRange"], ["low": language.number(period), "high": language.number(high),
                                             "unit": language.phrase(["timeUnits", unit], count: high)])
        } ?? language.phrase(["every", unit], count: period)
        return upper == 1 ? every : language.phrase(["timesEvery"], ["times": times, "every": every])
    }

    func eventTiming(_ p: TimingPattern) -> String? {
        var parts: [String] = []
        if !p.weekdays.isEmpty {
            let mondayFirst = p.weekdays.sorted { ($0.rawValue + 6) % 7 < ($1.rawValue + 6) % 7 }
            parts.append(language.phrase(["onDays"], ["days": language.list(mondayFirst.map { language.phrase(["weekdays", $0.name]) })]))
        }
        if let events = events(p.events, offset: p.offset) { parts.append(events) }
        if !p.clock.isEmpty { parts.append(language.phrase(["atTimes"], ["times": language.list(p.clock.sorted().map(\.description))])) }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// `before breakfast and dinner`, `in the morning and in the evening`.
    private func events(_ events: [EventTiming], offset: Int?) -> String? {
        var meals: [(relation: EventTiming.Relation, names: [String])] = []
        var others: [String] = []
        for event in events {
            guard let (relation, which) = event.meal else {
                // An offset from a day part: "30 minutes before bedtime", where the language has the phrase.
                let phrase = offset.map { minutes in
                    language.entry(["whenOffset", event.code]) != nil
                        ? language.phrase(["whenOffset", event.code], ["offset": self.minutes(minutes)])
                        : language.phrase(["whenOffsetOther"], ["when": language.phrase(["when", event.code]), "offset": self.minutes(minutes)])
                }
                others.append(phrase ?? language.phrase(["when", event.code]))
                continue
            }
            let names = which.count == EventTiming.Meal.allCases.count
                ? [language.phrase(["meals", "all"])] : which.map { language.phrase(["meals", $0.rawValue]) }
            if let index = meals.firstIndex(where: { $0.relation == relation }) {
                meals[index].names += names
            } else {
                meals.append((relation, names))
            }
        }
        let mealPhrases = meals.map { relation, names in
            guard let offset else { return language.phrase(["relation", relation.rawValue], ["meals": language.list(names)]) }
            return language.phrase(["relationOffset", relation.rawValue], ["meals": language.list(names), "offset": minutes(offset)])
        }
        let all = mealPhrases + others
        return all.isEmpty ? nil : language.list(all)
    }

    /// `30 minutes`.
    func minutes(_ count: Int) -> String {
        amount(Decimal(count), language.phrase(["timeUnits", "min"], count: Decimal(count)))
    }
}
