extension CodingUserInfoKey {
    /// `true` where a care-plan document is read, rather than what CareSync wrote itself (the
    /// store): an unknown field is an error, and so is a number that is not a whole number in
    /// its range (see `WholeNumber`).
    public static let strictDocument = CodingUserInfoKey(rawValue: "caresync.strictDocument")!
}

extension Decoder {
    var isStrictDocument: Bool { userInfo[.strictDocument] as? Bool == true }

    /// The container of a JSON object whose fields are `Keys`. In a strict document another
    /// field is an error at its path, suggesting the known field it may have meant.
    func fields<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        if isStrictDocument {
            let known = Keys.allCases.map(\.stringValue)
            let given = try container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
            // In the order of the names: JSONDecoder gives no order of its own.
            if let unknown = given.filter({ !known.contains($0) }).sorted().first {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: codingPath + [AnyCodingKey(unknown)],
                    debugDescription: "unknown field; " + NameSuggestion.hint(for: unknown, among: known, kind: "field")))
            }
        }
        return try container(keyedBy: keys)
    }
}

/// Any field name or array index, for paths and for listing an object's fields.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
