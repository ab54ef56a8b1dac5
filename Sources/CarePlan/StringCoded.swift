/// A value whose JSON form is a string it prints to and parses from, such as a day
/// (`"2026-11-23"`), a time (`"08:00"`) or a weekday (`"monday"`).
protocol StringCoded: Codable {
    init?(codedString: String)
    var codedString: String { get }
    /// What a valid string looks like, for error messages: `a day as YYYY-MM-DD`.
    static var expectedForm: String { get }
}

extension StringCoded {
    public init(from decoder: any Decoder) throws {
        self = try Self.decodeCodedString(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try encodeCodedString(to: encoder)
    }

    static func decodeCodedString(from decoder: any Decoder) throws -> Self {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(codedString: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected \(Self.expectedForm), found \"\(text)\"")
        }
        return value
    }

    func encodeCodedString(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(codedString)
    }
}
