/// Values as a person typed them (a command's `--value`, a form's field), read as the values
/// an activity's result asks for.
extension ResultKind {
    /// Reads `texts` as this kind's values: whole numbers for a scale, numbers with the
    /// components of a number result (systolic, then diastolic), yes or no, or text. The
    /// values are not yet checked against the scale or counted: ``check(_:)`` does that.
    public func values(from texts: [String], unit: String? = nil) throws(ResultError) -> [OutcomeValue] {
        var values: [OutcomeValue] = []
        for (index, text) in texts.enumerated() {
            switch self {
            case .scale:
                guard let n = Int(text) else { throw .unreadable(text, expected: self) }
                values.append(OutcomeValue(.integer(n), unit: unit))
            case .number(let defaultUnit, let components):
                guard let number = Double(text), number.isFinite else { throw .unreadable(text, expected: self) }
                let kind = components.indices.contains(index) ? components[index] : nil
                values.append(OutcomeValue(Int(text).map(OutcomeValue.Value.integer) ?? .decimal(number), unit: unit ?? defaultUnit, kind: kind))
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
    /// then decimals, else text.
    public static func untypedValues(from texts: [String], unit: String? = nil) -> [OutcomeValue] {
        texts.map { text in
            if let n = Int(text) { return OutcomeValue(.integer(n), unit: unit) }
            if let d = Double(text), d.isFinite { return OutcomeValue(.decimal(d), unit: unit) }
            return OutcomeValue(.text(text), unit: unit)
        }
    }
}
