import Foundation

/// Something the patient does (an intervention) or answers (an assessment) on a schedule.
///
/// `identifier` is the id every node shares; the store keeps each edit as a new
/// ``ActivityVersion``.
public struct Activity: Sendable, Hashable, Identifiable {
    public var identifier: String
    public var groupIdentifier: String?
    public var kind: ActivityKind
    public var title: String
    public var text: String?
    public var instructions: String?
    /// A colour as `#RRGGBB` or `#RRGGBBAA`.
    public var tintColor: String?
    public var imageURL: String?
    public var tags: [String]
    /// For assessments: whether a recorded result may be cleared again.
    public var resultResettable: Bool
    /// What kind of result an assessment asks for.
    public var result: ResultKind?
    public var userInfo: [String: String]
    /// The medication order this activity came from, if any.
    public var medication: MedicationLink?
    /// For assessments: the measurement that answers it. A sample of this type stored by
    /// the primary completes the first event of the day it was taken that has no outcome.
    public var measurement: MeasurementType?
    /// When its events count as missed, for household devices' alerts.
    public var missedDose: MissedDoseRule
    public var schedule: Schedule

    public var id: String { identifier }

    public init(
        identifier: String, groupIdentifier: String? = nil, kind: ActivityKind, title: String,
        text: String? = nil, instructions: String? = nil, tintColor: String? = nil,
        imageURL: String? = nil, tags: [String] = [], resultResettable: Bool = false,
        result: ResultKind? = nil, userInfo: [String: String] = [:],
        medication: MedicationLink? = nil, measurement: MeasurementType? = nil, missedDose: MissedDoseRule = .standard,
        schedule: Schedule
    ) throws(ActivityError) {
        self.identifier = identifier
        self.groupIdentifier = groupIdentifier
        self.kind = kind
        self.title = title
        self.text = text
        self.instructions = instructions
        self.tintColor = tintColor
        self.imageURL = imageURL
        self.tags = Array(Set(tags)).sorted()
        self.resultResettable = resultResettable
        self.result = result
        self.userInfo = userInfo
        self.medication = medication
        self.measurement = measurement
        self.missedDose = missedDose
        self.schedule = schedule
        try validate()
    }

    /// Checks the invariants every stored activity satisfies.
    public func validate() throws(ActivityError) {
        guard Self.isValidIdentifier(identifier) else { throw .invalidIdentifier(identifier) }
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw .emptyTitle }
        if let tintColor, !Self.isValidColor(tintColor) { throw .invalidTintColor(tintColor) }
        if kind == .intervention, result != nil { throw .resultOnIntervention }
        if let result { try result.validate() }
        if let measurement { try check(measurement) }
    }

    /// An assessment answered by a measurement asks for numbers it can hold: in a unit the
    /// type comes in, with two components for a blood pressure and one value otherwise.
    private func check(_ measurement: MeasurementType) throws(ActivityError) {
        guard kind == .assessment, case .number(let unit, let components)? = result,
              measurement.unit(unit) != nil, components.count == (measurement == .bloodPressure ? 2 : 0)
        else {
            throw .measurementDoesNotFit(
                "a \(measurement.rawValue) measurement answers an assessment whose result is a number in "
                    + measurement.units.map(MeasurementType.readable).joined(separator: " or ")
                    + (measurement == .bloodPressure ? " with two components (systolic, diastolic)" : " without components"))
        }
    }

    /// Identifiers are 1–200 characters without whitespace or control characters.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        (1...200).contains(identifier.count)
            && !identifier.unicodeScalars.contains {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
            }
    }

    static func isValidColor(_ color: String) -> Bool {
        let digits = color.dropFirst()
        return color.first == "#" && [6, 8].contains(digits.count) && digits.allSatisfy(\.isHexDigit)
    }
}

/// Interventions are done; assessments are answered with a result.
public enum ActivityKind: String, Sendable, Hashable, Codable, CaseIterable, NamedCases {
    case intervention
    case assessment
}

/// Where a medication activity came from: the order and the medication it names.
public struct MedicationLink: Sendable, Hashable {
    /// A reference to the order, such as `MedicationRequest/123`.
    public var request: String
    /// The medication's code system and code, if it has one.
    public var system: String?
    public var code: String?
    public var display: String?

    public init(request: String, system: String? = nil, code: String? = nil, display: String? = nil) {
        self.request = request
        self.system = system
        self.code = code
        self.display = display
    }
}

extension MedicationLink: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case request, system, code, display }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        self.init(
            request: try c.decode(String.self, forKey: .request),
            system: try c.decodeIfPresent(String.self, forKey: .system),
            code: try c.decodeIfPresent(String.self, forKey: .code),
            display: try c.decodeIfPresent(String.self, forKey: .display))
    }
}

/// Why an activity is invalid.
public enum ActivityError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidIdentifier(String)
    case emptyTitle
    case invalidTintColor(String)
    case resultOnIntervention
    case invalidResult(String)
    case measurementDoesNotFit(String)

    public var description: String {
        switch self {
        case .invalidIdentifier(let id):
            "invalid activity identifier \"\(id)\": use 1 to 200 characters without spaces"
        case .emptyTitle: "the title is empty"
        case .invalidTintColor(let color): "invalid tint colour \"\(color)\": use #RRGGBB or #RRGGBBAA"
        case .resultOnIntervention: "only assessments ask for a result"
        case .invalidResult(let why), .measurementDoesNotFit(let why): why
        }
    }
}
