import CarePlan
import Foundation

/// Recorded values as a page in this language shows them.
extension WebWords {
    /// `value` as this language writes a number (`120,5`).
    func number(_ value: Double) -> String {
        language.number(Decimal(string: String(value)) ?? 0)
    }

    /// A recorded value as this language writes it: a number with its decimal separator and
    /// its unit as people read it (`73,1 kg`, `120,5 mmHg`), yes or no in words, text as given
    /// (a date as ISO 8601: no result kind asks for one).
    func value(_ value: OutcomeValue) -> String {
        let unit = value.unit.map { " " + MeasurementType.readable($0) } ?? ""
        switch value.value {
        case .integer, .decimal: return typed(value) + unit
        case .boolean(let yes): return self["symptoms", yes ? "yes" : "no"]
        case .text(let text): return text
        case .date: return value.formatted
        }
    }

    /// A number as a person would type it again in this language (`120`, `72,5`); other
    /// values as ``value(_:)`` writes them.
    func typed(_ value: OutcomeValue) -> String {
        switch value.value {
        case .integer(let n): "\(n)"
        case .decimal(let d): number(d)
        default: self.value(value)
        }
    }
}
