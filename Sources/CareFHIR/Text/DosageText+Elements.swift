import CarePlan
import Foundation

/// The parts of a sentence beyond dose and timing: how and where it is given, at what rate,
/// on which dates, the maxima per dose and per lifetime, and the notes after the sentence.
extension DosageText {
    /// The method as an imperative around the rest of the sentence (`swallow 1 tablet …`,
    /// `1 Tablette … schlucken`); an unknown method that is not an imperative as a note
    /// (`(method: PICC line)`).
    func method(_ method: CodeableConcept?, _ rest: String) -> String {
        guard let method else { return rest }
        if let verb = coded(method, in: "methods") ?? imperative(method) {
            return language.phrase(["withMethod"], ["method": verb, "rest": rest])
        }
        guard let name = conceptText(method) ?? codeText(method) else { return rest }
        return [rest, language.phrase(["methodOther"], ["method": name])].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// A SNOMED CT imperative's verb from its display (`Rinse - dosing instruction imperative`).
    private func imperative(_ concept: CodeableConcept) -> String? {
        guard let display = concept.displayName, let range = display.range(of: " - dosing instruction imperative") else { return nil }
        return language.runningText(String(display[..<range.lowerBound]))
    }

    /// `at a rate of 50 mL an hour`, `at a rate of 2 to 5 mL/min`.
    func rate(_ doseAndRate: Dosage.DoseAndRate?) -> String? {
        let rate = doseAndRate?.rateRatio.flatMap { perTime($0) ?? ratio($0) }
            ?? doseAndRate?.rateRange.flatMap(range) ?? doseAndRate?.rateQuantity.flatMap(quantity)
        return rate.map { language.phrase(["rate"], ["rate": $0]) }
    }

    /// `5 mg/kg`, `1.8 mg/20 mL`: a ratio whose denominator is not a time, its unit alone
    /// when it counts one.
    private func ratio(_ ratio: Ratio) -> String? {
        guard let numerator = ratio.numerator.flatMap(quantity), let given = ratio.denominator,
              let denominator = quantity(given) else { return nil }
        let unit = unit(given, count: 1)
        return "\(numerator)/" + (given.value == 1 && given.comparator == nil && !unit.isEmpty ? unit : denominator)
    }

    /// `(site: left upper arm)`.
    func site(_ site: CodeableConcept?) -> String? {
        site.flatMap { coded($0, in: "sites") ?? (conceptText($0) ?? codeText($0)).map { language.phrase(["siteOther"], ["site": $0]) } }
    }

    /// A concept with neither text nor display by its first code and the code's system:
    /// `SNOMED CT 738995006`, `http://example.org/methods inhale`.
    func codeText(_ concept: CodeableConcept) -> String? {
        guard let coding = concept.coding?.first(where: { $0.code?.isEmpty == false }), let code = coding.code else { return nil }
        let systems = ["http://snomed.info/sct": "SNOMED CT", "http://terminology.hl7.org/CodeSystem/v3-RouteOfAdministration": "HL7 v3"]
        guard let system = coding.system else { return code }
        return "\(systems[system] ?? system) \(code)"
    }

    /// `at most 4 mg per dose`, `less than 4 mg per dose`.
    func maximum(perDose quantity: Quantity?) -> String? {
        maximum("maximumPerDose", quantity)
    }

    /// `at most 400 mg in a lifetime`, `less than 400 mg in a lifetime`.
    func maximum(lifetime quantity: Quantity?) -> String? {
        maximum("maximumLifetime", quantity)
    }

    private func maximum(_ key: String, _ given: Quantity?) -> String? {
        guard var quantity = given else { return nil }
        quantity.comparator = Self.maximumComparator(given?.comparator)
        return self.quantity(quantity).map { language.phrase([Self.maximumKey(key, given?.comparator)], ["dose": $0]) }
    }

    /// A supplemental instruction in this language when its code is known, else as given.
    func instruction(_ concept: CodeableConcept) -> String? {
        coded(concept, in: "instructions") ?? conceptText(concept, runningText: false)
    }

    /// A note after the sentence, as a sentence of its own: first letter capitalized, no full stop.
    func note(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix(".") { text.removeLast() }
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// `on 2016-08-16 at 09:00 and 2016-08-17 at 09:00`; more than four dates on every day
    /// between the first and the last (or more than ``datesListed``) as `on 6 dates from
    /// 2016-08-16 to 2016-08-21`. Times in ``timeZone`` (UTC without one).
    func eventDates(_ texts: [String]?) -> String? {
        let values = (texts ?? []).compactMap(FHIRDateTime.init)
        guard let first = values.first, let last = values.last else { return nil }
        // Every day from the first to the last, or too many to read: their span; else each date.
        let everyDay = values.count == first.day.distance(to: last.day) + 1 && Set(values.map(\.day)).count == values.count
        guard values.count <= 4 || (!everyDay && values.count <= Self.datesListed) else {
            return language.phrase(["onDatesRange"], count: Decimal(values.count), ["first": date(first), "last": date(last)])
        }
        return language.phrase(["onDates"], ["dates": language.list(values.map(dateAndTime))])
    }

    /// The most event dates a sentence lists one by one when they are not every day.
    static let datesListed = 12

    /// `2016-08-16 at 09:00`, or the date alone when no time is given.
    private func dateAndTime(_ value: FHIRDateTime) -> String {
        guard let instant = value.instant else { return date(value) }
        let zone = timeZone ?? TimeZone(secondsFromGMT: 0)!
        let local = FHIRDateTime(day: CalendarDay.containing(instant, in: zone))
        return language.phrase(["dateAt"], ["date": date(local), "time": TimeOfDay.containing(instant, in: zone).description])
    }

    /// The words of a concept: its text or display without SNOMED CT's semantic tag
    /// (`(qualifier value)`), its `- dosing instruction …` suffix or a leading `Entire`, as
    /// running text unless `runningText` is false.
    func conceptText(_ concept: CodeableConcept, runningText: Bool = true) -> String? {
        guard var text = concept.text.flatMap({ $0.isEmpty ? nil : $0 }) ?? concept.displayName else { return nil }
        if let tag = text.range(of: #" \([a-z ]+\)$"#, options: .regularExpression) { text.removeSubrange(tag) }
        if let suffix = text.range(of: " - dosing instruction") { text.removeSubrange(suffix.lowerBound...) }
        if text.hasPrefix("Entire ") { text.removeFirst("Entire ".count) }
        return runningText ? language.runningText(text) : text
    }
}
