/// An enumeration written by the names of its cases (a document's `"kind"`, say), whose
/// decoding error lists them: `expected one of "intervention", "assessment", found "med"`
/// rather than that the type cannot be initialized from the value.
public protocol NamedCases: RawRepresentable<String>, CaseIterable, Codable {}

extension NamedCases {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let value = Self(rawValue: name) else {
            let names = Self.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected one of \(names), found \"\(name)\"")
        }
        self = value
    }
}
