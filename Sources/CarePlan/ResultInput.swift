/// Values as a person typed them (a command's `--value`, a form's field), read as the values
/// an activity's result asks for.
extension ResultKind {
    /// Reads `texts` as this kind's values: whole numbers for a scale, numbers with the
    /// components of a number result (systolic, then diastolic), yes or no, or text. The
    /// values are not yet checked against the scale or counted: ``check(_:)`` does that.
    ///
    /// A number result's values carry its unit as the plan writes it. Typed in `unit`, a unit
    /// of the same quantity (lb for kg, °F for °C, mg/dL for mmol/L), they are converted into
    /// the result's unit and rounded to its ``QuantityUnit/decimals`` (72.5 lb is 32.89 kg);
    /// typed in a unit that does not convert, they are refused (``ResultError/wrongUnit(given:expected:)``).
    /// A number is written as a reading is: digits with a sign and a decimal point at most,
    /// not "1e3", "inf", "nan" or hexadecimal, which `Double` would also read.
    public func values(from texts: [String], unit: String? = nil) throws(ResultError) -> [OutcomeValue] {
        var values: [OutcomeValue] = []
        for (index, text) in texts.enumerated() {
            switch self {
            case .scale:
                guard let n = Int(text) else { throw .unreadable(text, expected: self) }
                values.append(OutcomeValue(.integer(n), unit: unit))
            case .number(let asked, let components):
                guard let number = Self.writtenNumber(text) else { throw .unreadable(text, expected: self) }
                let kind = components.indices.contains(index) ? components[index] : nil
                values.append(OutcomeValue(try Self.value(number, typed: text, in: unit, asked: asked), unit: asked, kind: kind))
            case .boolean:
                switch text.lowercased() {
                case "yes", "true", "1": values.append(OutcomeValue(.boolean(true)))
                case "no", "false", "0": values.append(OutcomeValue(.boolean(false)))
                default: throw .unreadable(text, expected: self)
                }
            case .text:
                values.append(OutcomeValue(.text(text)))
            }
        }
        return values
    }

    /// Reads `texts` for an activity that asks for no particular result: whole numbers,
    /// then decimals (as a reading is written), else text.
    public static func untypedValues(from texts: [String], unit: String? = nil) -> [OutcomeValue] {
        texts.map { text in
            if let n = Int(text) { return OutcomeValue(.integer(n), unit: unit) }
            if let d = writtenNumber(text) { return OutcomeValue(.decimal(d), unit: unit) }
            return OutcomeValue(.text(text), unit: unit)
        }
    }

    /// `number`, typed as `text` in `given` (the result's unit when `nil`), in the unit `asked`.
    private static func value(_ number: Double, typed text: String, in given: String?, asked: String) throws(ResultError) -> OutcomeValue.Value {
        guard let given, !QuantityUnit.same(given, asked) else { return Int(text).map(OutcomeValue.Value.integer) ?? .decimal(number) }
        guard let from = QuantityUnit(given), let to = QuantityUnit(asked), let converted = from.converted(number, to: to) else {
            throw .wrongUnit(given: given, expected: asked)
        }
        return .decimal(to.rounded(converted))
    }

    /// `text` as a number written as people write a reading: an optional sign, then digits
    /// with at most one decimal point (`72.5`, `-3`, `.5`); `nil` for anything else.
    static func writtenNumber(_ text: String) -> Double? {
        let unsigned = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
              let number = Double(text), number.isFinite
        else { return nil }
        return number
    }
}
