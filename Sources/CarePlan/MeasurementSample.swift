import Foundation

/// What a health measurement measures, and the units (UCUM codes) it may come in.
public enum MeasurementType: String, Sendable, Hashable, Codable, CaseIterable, NamedCases {
    case heartRate = "heart-rate"
    case steps
    case bloodPressure = "blood-pressure"
    case glucose

    /// What it measures: its row of the table of known units (``QuantityUnit/known``).
    public var quantity: MeasuredQuantity {
        switch self {
        case .heartRate: .pulse
        case .steps: .steps
        case .bloodPressure: .bloodPressure
        case .glucose: .glucose
        }
    }

    /// The UCUM units accepted; the first is the one summaries are given in.
    public var units: [String] {
        QuantityUnit.known.filter { $0.quantity == quantity }.map(\.code)
    }

    /// The UCUM code of a unit as people write it (`bpm`, `mmHg`, `steps`, `mg/dl`), or
    /// `nil` if this type does not come in it. Without a unit, the type's first.
    public func unit(_ written: String?) -> String? {
        guard let written else { return units[0] }
        return QuantityUnit(written).flatMap { $0.quantity == quantity ? $0.code : nil }
    }

    /// A UCUM code as people read it: `mmHg` for `mm[Hg]`, `steps` for `{steps}`.
    public static func readable(_ unit: String) -> String {
        unit.filter { !"[]{}".contains($0) }
    }
}

/// A device or app that takes measurements: a watch's own sensor, a paired cuff.
public struct MeasurementSource: Sendable, Hashable, Codable {
    /// Stable across runs: what a FHIR Device's identifier is made from.
    public var id: String
    public var name: String
    public var manufacturer: String?
    public var model: String?
    public var softwareVersion: String?

    public init(id: String, name: String, manufacturer: String? = nil, model: String? = nil, softwareVersion: String? = nil) {
        self.id = id
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.softwareVersion = softwareVersion
    }
}

/// One sample: a value (systolic and diastolic for a blood pressure) in its unit, taken at
/// a moment or counted over an interval (steps), by a source.
public struct MeasurementSample: Sendable, Hashable, Codable {
    /// Unique per sample: the same sample sent twice is kept once.
    public var id: String
    public var type: MeasurementType
    /// The value; a blood pressure's systolic.
    public var value: Double
    /// A blood pressure's diastolic; `nil` for the other types.
    public var diastolic: Double?
    /// A UCUM code among the type's ``MeasurementType/units``.
    public var unit: String
    public var start: Date
    /// The end of the interval counted; the start for a measurement at a moment.
    public var end: Date
    /// The ``MeasurementSource`` that took it.
    public var sourceID: String

    public init(
        id: String, type: MeasurementType, value: Double, diastolic: Double? = nil, unit: String, start: Date, end: Date? = nil,
        sourceID: String
    ) {
        self.id = id
        self.type = type
        self.value = value
        self.diastolic = diastolic
        self.unit = unit
        self.start = start
        self.end = end ?? start
        self.sourceID = sourceID
    }

    /// mg/dL of glucose in one mmol/L (its molar mass, 180.16 g/mol, over 10).
    public static let glucoseMilligramsPerMillimole = 18.016

    /// The value (a blood pressure's systolic) in `unit`, one its type comes in: glucose
    /// converts between mmol/L and mg/dL; the other types have one unit.
    public func value(in unit: String) -> Double {
        convert(value, to: unit)
    }

    /// A blood pressure's diastolic in `unit`.
    public func diastolic(in unit: String) -> Double? {
        diastolic.map { convert($0, to: unit) }
    }

    private func convert(_ number: Double, to target: String) -> Double {
        guard let from = QuantityUnit(unit), let to = QuantityUnit(target) else { return number }
        return from.converted(number, to: to) ?? number
    }

    /// Checks that the sample could be real.
    ///
    /// - Throws: ``MeasurementError`` naming what is wrong: an empty id, a unit the type does
    ///   not come in, a value no body gives (heart rate 0 or 400, negative steps), a blood
    ///   pressure without its diastolic or with one not below its systolic, a diastolic on
    ///   another type, or an interval that ends before it starts.
    public func validate() throws(MeasurementError) {
        guard !id.isEmpty else { throw .noID }
        guard type.units.contains(unit), let known = QuantityUnit(unit) else { throw .unknownUnit(type, unit) }
        guard known.isPlausible(value) else { throw .implausible(type, value, unit: unit, known.plausible) }
        switch (type, diastolic) {
        case (.bloodPressure, nil): throw .noDiastolic
        case (.bloodPressure, let diastolic?):
            guard known.isPlausible(diastolic) else { throw .implausible(type, diastolic, unit: unit, known.plausible) }
            guard diastolic < value else { throw .diastolicNotBelowSystolic(systolic: value, diastolic: diastolic) }
        case (_, nil): break
        case (_, _?): throw .diastolicWithout(type)
        }
        guard end >= start else { throw .endsBeforeStart }
    }
}

/// Why a measurement was refused.
public enum MeasurementError: Error, Hashable, Sendable, CustomStringConvertible {
    case noID
    case unknownUnit(MeasurementType, String)
    case implausible(MeasurementType, Double, unit: String, ClosedRange<Double>)
    case noDiastolic
    case diastolicNotBelowSystolic(systolic: Double, diastolic: Double)
    case diastolicWithout(MeasurementType)
    case endsBeforeStart
    /// The source it names was neither sent with it nor known.
    case unknownSource(String)

    public var description: String {
        switch self {
        case .noID: "a measurement without an id"
        case .unknownUnit(let type, let unit):
            "\(type.rawValue) does not come in \"\(unit)\": \(type.units.joined(separator: " or "))"
        case .implausible(let type, let value, let unit, let range):
            "\(type.rawValue) \(Self.number(value)) \(unit) is not plausible: from \(Self.number(range.lowerBound)) to \(Self.number(range.upperBound))"
        case .noDiastolic: "a blood pressure needs its diastolic as well as its systolic"
        case .diastolicNotBelowSystolic(let systolic, let diastolic):
            "the diastolic \(Self.number(diastolic)) is not below the systolic \(Self.number(systolic))"
        case .diastolicWithout(let type): "\(type.rawValue) has no diastolic"
        case .endsBeforeStart: "the interval ends before it starts"
        case .unknownSource(let id): "no measurement source \"\(id)\": a sample names the source that took it"
        }
    }

    static func number(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
