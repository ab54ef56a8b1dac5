/// The kind of answer an assessment asks for.
public enum ResultKind: Sendable, Hashable {
    /// A whole number on a scale, such as pain from 0 to 10.
    case scale(min: Int, max: Int, minLabel: String? = nil, maxLabel: String? = nil)
    /// One or more numbers with a unit; a blood pressure has the components
    /// `["systolic", "diastolic"]`.
    case number(unit: String, components: [String] = [])
    case boolean
    case text

    func validate() throws(ActivityError) {
        switch self {
        case .scale(let min, let max, _, _) where min >= max:
            throw .invalidResult("a scale needs min < max, found \(min)...\(max)")
        case .number(let unit, _) where unit.isEmpty:
            throw .invalidResult("a number result needs a unit")
        case .number(_, let components) where Set(components).count != components.count:
            throw .invalidResult("a number result's components must be distinct")
        default:
            return
        }
    }

    /// The unit of a number result (`mmHg`); `nil` for the other kinds.
    public var unit: String? {
        if case .number(let unit, _) = self { unit } else { nil }
    }

    /// The number of values a complete result has.
    public var valueCount: Int {
        if case .number(_, let components) = self { return max(1, components.count) }
        return 1
    }
}

extension ResultKind: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case type, min, max, minLabel, maxLabel, unit, components }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "scale":
            self = .scale(
                min: try c.decode(WholeNumber<ScaleEnd>.self, forKey: .min).value,
                max: try c.decode(WholeNumber<ScaleEnd>.self, forKey: .max).value,
                minLabel: try c.decodeIfPresent(String.self, forKey: .minLabel),
                maxLabel: try c.decodeIfPresent(String.self, forKey: .maxLabel))
        case "number":
            self = .number(
                unit: try c.decode(String.self, forKey: .unit),
                components: try c.decodeIfPresent([String].self, forKey: .components) ?? [])
        case "boolean": self = .boolean
        case "text": self = .text
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c,
                debugDescription: "unknown result type \"\(other)\": use scale, number, boolean or text")
        }
    }

    /// The range of a scale's ends in a document.
    enum ScaleEnd: WholeNumberRange { static let range = -DocumentNumber.largest...DocumentNumber.largest }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .scale(let min, let max, let minLabel, let maxLabel):
            try c.encode("scale", forKey: .type)
            try c.encode(min, forKey: .min)
            try c.encode(max, forKey: .max)
            try c.encodeIfPresent(minLabel, forKey: .minLabel)
            try c.encodeIfPresent(maxLabel, forKey: .maxLabel)
        case .number(let unit, let components):
            try c.encode("number", forKey: .type)
            try c.encode(unit, forKey: .unit)
            if !components.isEmpty { try c.encode(components, forKey: .components) }
        case .boolean: try c.encode("boolean", forKey: .type)
        case .text: try c.encode("text", forKey: .type)
        }
    }
}

extension ResultKind {
    /// Checks that `values` answer this kind of result: their number and type; a scale's
    /// range; a number's unit (the result's, however written: `mm[Hg]` answers `mmHg`; a
    /// value without one is in the result's) and, in a unit the table knows
    /// (``QuantityUnit``), what a body or a counter could give; and a blood pressure's shape,
    /// its diastolic below its systolic.
    public func check(_ values: [OutcomeValue]) throws(ResultError) {
        guard values.count == valueCount else {
            throw .wrongValueCount(expected: valueCount, found: values.count)
        }
        for value in values {
            switch (self, value.value) {
            case (.scale(let min, let max, _, _), .integer(let n)):
                guard (min...max).contains(n) else { throw .outOfScale(n, min: min, max: max) }
            case (.number(let unit, _), .integer), (.number(let unit, _), .decimal):
                try Self.check(value, in: unit)
            case (.boolean, .boolean), (.text, .text):
                continue
            default:
                throw .wrongType(expected: self)
            }
        }
        try checkPressure(values)
    }

    /// A number of a result in `unit`: in that unit, and plausible in it.
    private static func check(_ value: OutcomeValue, in unit: String) throws(ResultError) {
        if let given = value.unit, !QuantityUnit.same(given, unit) { throw .wrongUnit(given: given, expected: unit) }
        guard let known = QuantityUnit(unit), let number = value.number else { return }
        guard known.isPlausible(number) else { throw .implausible(number, known.plausible) }
    }

    /// A result with the components systolic and diastolic: the diastolic below the systolic.
    /// Values that name their component (``OutcomeValue/kind``) are read by it, others by
    /// their place among the components.
    private func checkPressure(_ values: [OutcomeValue]) throws(ResultError) {
        guard case .number(_, let components) = self,
              let systolic = Self.component("systolic", of: components, in: values),
              let diastolic = Self.component("diastolic", of: components, in: values)
        else { return }
        guard diastolic < systolic else { throw .diastolicNotBelowSystolic(systolic: systolic, diastolic: diastolic) }
    }

    private static func component(_ name: String, of components: [String], in values: [OutcomeValue]) -> Double? {
        guard let index = components.firstIndex(where: { $0.lowercased() == name }) else { return nil }
        return (values.first { $0.kind?.lowercased() == name } ?? values[index]).number
    }

    var typeName: String {
        switch self {
        case .scale(let min, let max, _, _): "a whole number from \(min) to \(max)"
        case .number(let unit, _): "a number in \(unit)"
        case .boolean: "yes or no"
        case .text: "text"
        }
    }
}

/// Why a result does not answer an assessment.
public enum ResultError: Error, Hashable, Sendable, CustomStringConvertible {
    case wrongValueCount(expected: Int, found: Int)
    case outOfScale(Int, min: Int, max: Int)
    case wrongType(expected: ResultKind)
    /// Typed text that is not a value of the kind asked for.
    case unreadable(String, expected: ResultKind)
    /// A number no body or counter gives in the result's unit (the range is in that unit).
    case implausible(Double, ClosedRange<Double>)
    /// A number in another unit than the result's: refused, never kept beside the result's
    /// values (typed in a unit that converts, it is converted first: ``values(from:unit:)``).
    case wrongUnit(given: String, expected: String)
    /// A blood pressure whose diastolic is not below its systolic (80/120: the two swapped).
    case diastolicNotBelowSystolic(systolic: Double, diastolic: Double)
    /// Values for an activity that asks for none: an intervention is done or not done.
    case noValueAsked(found: Int)

    public var description: String {
        switch self {
        case .wrongValueCount(let expected, let found):
            "the result needs \(expected) value\(expected == 1 ? "" : "s"), found \(found)"
        case .outOfScale(let n, let min, let max): "\(n) is outside the scale \(min)...\(max)"
        case .wrongType(let expected): "the result must be \(expected.typeName)"
        case .unreadable(let text, let expected): "\"\(text)\" is not \(expected.typeName)"
        case .implausible(let value, let range):
            "\(OutcomeValue(.decimal(value)).formatted) is not a plausible value "
                + "(\(OutcomeValue(.decimal(range.lowerBound)).formatted) to \(OutcomeValue(.decimal(range.upperBound)).formatted))"
        case .wrongUnit(let given, let expected): "the result is in \(expected), not \(given)"
        case .diastolicNotBelowSystolic(let systolic, let diastolic):
            "the diastolic \(OutcomeValue(.decimal(diastolic)).formatted) is not below the systolic \(OutcomeValue(.decimal(systolic)).formatted)"
        case .noValueAsked(let found): "this activity asks for no value, found \(found)"
        }
    }
}
