import CarePlan
import Foundation

extension WebWords {
    /// Why the record refused an outcome, in this language (`values` fill a future day's
    /// `{day}`, `{today}` and `{zone}`).
    func refusal(_ rejection: Rejection, values: [String: String] = [:]) -> String {
        self["errors", "rejected", rejection.rawValue, values: values]
    }

    /// Why typed values do not answer what an activity asks, in this language.
    func refusal(_ error: ResultError) -> String {
        switch error {
        case .wrongValueCount(let expected, let found):
            counted("errors", "result", "valueCount", count: expected, ["found": "\(found)"])
        case .outOfScale(let value, let min, let max):
            self["errors", "result", "outOfScale", values: ["value": "\(value)", "min": "\(min)", "max": "\(max)"]]
        case .wrongType(let expected):
            self["errors", "result", "wrongType", values: ["not": not(expected)]]
        case .unreadable(let text, let expected):
            self["errors", "result", "unreadable", values: ["text": text, "not": not(expected)]]
        case .implausible(let value, let range):
            self["errors", "result", "implausible", values: [
                "value": number(value), "low": number(range.lowerBound), "high": number(range.upperBound),
            ]]
        case .wrongUnit(let given, let expected):
            self["errors", "result", "wrongUnit", values: [
                "given": MeasurementType.readable(given), "expected": MeasurementType.readable(expected),
            ]]
        case .diastolicNotBelowSystolic(let systolic, let diastolic):
            self["errors", "result", "diastolicNotBelowSystolic", values: ["systolic": number(systolic), "diastolic": number(diastolic)]]
        case .noValueAsked:
            self["errors", "result", "noValueAsked"]
        }
    }

    /// That a value is not of `kind` ("is not a number", "ist keine Zahl").
    private func not(_ kind: ResultKind) -> String {
        switch kind {
        case .scale(let min, let max, _, _): self["errors", "result", "not", "scale", values: ["min": "\(min)", "max": "\(max)"]]
        case .number: self["errors", "result", "not", "number"]
        case .boolean: self["errors", "result", "not", "boolean"]
        case .text: self["errors", "result", "not", "text"]
        }
    }

    /// `text` as a number is read (a decimal point), when this language writes a decimal
    /// comma: "120,5" on a German page is 120.5.
    func readableNumber(_ text: String) -> String {
        guard language.entry(["decimalSeparator"])?.string == ",", !text.contains(".") else { return text }
        return text.replacingOccurrences(of: ",", with: ".")
    }
}
