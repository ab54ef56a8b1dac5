import Foundation

/// Whom the plan is for, as the care report and (later) a FHIR Patient name them.
public struct Patient: Sendable, Hashable {
    public var name: String
    public var birthDate: CalendarDay?
    /// An identifier the care team knows the patient by, such as a record number.
    public var identifier: String?

    public init(name: String, birthDate: CalendarDay? = nil, identifier: String? = nil) throws(PatientError) {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw .emptyName }
        self.name = name
        self.birthDate = birthDate
        self.identifier = identifier
    }
}

public enum PatientError: Error, Hashable, Sendable, CustomStringConvertible {
    case emptyName

    public var description: String { "the patient needs a name" }
}

/// The JSON form: `{"name", "birthDate", "identifier"}`, the name required.
extension Patient: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, birthDate, identifier }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        do {
            try self.init(
                name: try c.decode(String.self, forKey: .name), birthDate: try c.decodeIfPresent(CalendarDay.self, forKey: .birthDate),
                identifier: try c.decodeIfPresent(String.self, forKey: .identifier))
        } catch let error as PatientError {
            throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(birthDate, forKey: .birthDate)
        try c.encodeIfPresent(identifier, forKey: .identifier)
    }
}
