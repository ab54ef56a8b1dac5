import Foundation

/// What a measured number is an amount of, and the values a body or a counter can give.
///
/// A quantity has one range, in its base unit (its first unit in ``QuantityUnit/known``): a
/// value in another unit is converted to the base unit before it is compared. The table
/// asked for a range per unit; one per quantity is the refinement, because two ranges written
/// for one quantity disagree at their ends: glucose's were 0.5…55 mmol/L and 10…1000 mg/dL,
/// so a sample of 1000 mg/dL passed, and then its 55.5 mmol/L, completing an assessment asked
/// in mmol/L, was refused in the same transaction.
public enum MeasuredQuantity: Sendable, Hashable, CaseIterable {
    case bodyWeight, bodyTemperature, pulse, steps, bloodPressure, glucose, percentage

    /// The values a body or a counter gives, in the base unit.
    var plausible: ClosedRange<Double> {
        switch self {
        case .bodyWeight: 0.25...650  // kg: a premature newborn to the heaviest person recorded
        case .bodyTemperature: 25...45  // °C: deep hypothermia to a fever no one survives
        case .pulse: 20...300  // beats a minute
        case .steps: 0...100_000  // in one count: a sample, or a day's
        case .bloodPressure: 20...300  // mmHg, either component
        case .glucose: 0.5...55  // mmol/L
        case .percentage: 0...100
        }
    }
}

/// A unit a measured number comes in: its UCUM code, the other ways people write it, the
/// ``MeasuredQuantity`` it measures and how it converts to that quantity's base unit.
///
/// The one table of known units: an assessment's result, a typed `--unit` and a measurement
/// sample are all read and judged by it (``MeasurementType/units`` are its rows for each type).
public struct QuantityUnit: Sendable, Hashable {
    /// The UCUM code (`mm[Hg]`, `[lb_av]`, `Cel`).
    public let code: String
    public let quantity: MeasuredQuantity
    /// The other spellings (`mmHg`; `lb`, `lbs`; `°C`, `C`); code and spellings are matched
    /// regardless of case.
    let spellings: [String]
    /// A value in this unit is `(value + offset) × factor ÷ divisor` in the base unit: a
    /// fraction written as two numbers, so that 113 °F is 45 °C exactly (81 × 5 ÷ 9) rather
    /// than 45.000000000000007 (81 × 0.5555…).
    let offset: Double
    let factor: Double
    let divisor: Double
    /// The decimals a converted value keeps (``rounded(_:)``), and its range is shown with:
    /// what a scale, a thermometer or a meter shows in this unit, so 72.5 lb is 32.89 kg, not
    /// 32.88544682 kg, and 98.6 °F is 37 °C.
    public let decimals: Int

    init(
        _ code: String, _ quantity: MeasuredQuantity, spellings: [String] = [], offset: Double = 0, factor: Double = 1,
        divisor: Double = 1, decimals: Int
    ) {
        self.code = code
        self.quantity = quantity
        self.spellings = spellings
        self.offset = offset
        self.factor = factor
        self.divisor = divisor
        self.decimals = decimals
    }

    /// Every known unit, each quantity's base unit first.
    public static let known: [QuantityUnit] = [
        QuantityUnit("kg", .bodyWeight, spellings: ["kilogram", "kilograms"], decimals: 2),
        QuantityUnit("[lb_av]", .bodyWeight, spellings: ["lb", "lbs", "pound", "pounds"], factor: 0.453_592_37, decimals: 1),
        QuantityUnit("Cel", .bodyTemperature, spellings: ["°C", "C"], decimals: 1),
        QuantityUnit("[degF]", .bodyTemperature, spellings: ["°F", "F"], offset: -32, factor: 5, divisor: 9, decimals: 1),
        QuantityUnit("/min", .pulse, spellings: ["bpm", "beats/min", "{beats}/min"], decimals: 0),
        QuantityUnit("{steps}", .steps, spellings: ["steps"], decimals: 0),
        QuantityUnit("mm[Hg]", .bloodPressure, spellings: ["mmHg"], decimals: 0),
        QuantityUnit("mmol/L", .glucose, decimals: 1),
        QuantityUnit("mg/dL", .glucose, divisor: MeasurementSample.glucoseMilligramsPerMillimole, decimals: 0),
        QuantityUnit("%", .percentage, decimals: 1),
    ]

    /// The known unit written `written` (`mmHg`, `mm[Hg]`, `lbs`, `°F`), or `nil`.
    public init?(_ written: String) {
        let wanted = written.lowercased()
        guard let unit = Self.known.first(where: { ([$0.code] + $0.spellings).contains { $0.lowercased() == wanted } }) else {
            return nil
        }
        self = unit
    }

    /// Whether `a` and `b` name one unit: the same known unit however written (`mmHg` and
    /// `mm[Hg]`), or, for units the table does not know (`tablet`, `cm`), the same text.
    public static func same(_ a: String, _ b: String) -> Bool {
        guard a != b else { return true }
        guard let known = QuantityUnit(a) else { return false }
        return known == QuantityUnit(b)
    }

    /// `value` in this unit converted to `other`, or `nil` if `other` measures another
    /// quantity (kilograms are not millimoles per litre). Not rounded.
    public func converted(_ value: Double, to other: QuantityUnit) -> Double? {
        guard other.quantity == quantity else { return nil }
        return other == self ? value : other.fromBase(toBase(value))
    }

    /// `value` to this unit's ``decimals``.
    public func rounded(_ value: Double) -> Double {
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    /// Whether a body or a counter could give `value` in this unit: its quantity's range,
    /// compared in the base unit.
    public func isPlausible(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        let base = toBase(value), range = quantity.plausible
        // A conversion's last bit does not make a bound a refusal (650 kg in lb and back).
        let slack = 1e-9 * max(1, abs(base))
        return range.lowerBound - slack <= base && base <= range.upperBound + slack
    }

    /// The plausible values in this unit, as shown to a person: the quantity's range converted
    /// and rounded inwards to ``decimals`` (glucose's 0.5…55 mmol/L is 10…990 mg/dL), so a
    /// value refused always lies outside the range it is shown.
    public var plausible: ClosedRange<Double> {
        let range = quantity.plausible
        return Self.inward(fromBase(range.lowerBound), decimals, .up)...Self.inward(fromBase(range.upperBound), decimals, .down)
    }

    func toBase(_ value: Double) -> Double { (value + offset) * factor / divisor }
    func fromBase(_ value: Double) -> Double { value * divisor / factor - offset }

    /// `value` rounded to `decimals` by `rule`, once a conversion's noise is gone (25 °C is
    /// 77.00000000000001 °F, whose ceiling at one decimal would be 77.1).
    private static func inward(_ value: Double, _ decimals: Int, _ rule: FloatingPointRoundingRule) -> Double {
        let scale = pow(10, Double(decimals))
        let scaled = (value * scale * 1e6).rounded() / 1e6
        return scaled.rounded(rule) / scale
    }
}
