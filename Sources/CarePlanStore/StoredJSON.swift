import CarePlan
import Foundation

/// The canonical JSON the store writes: sorted keys, so equal values give equal text.
enum StoredJSON {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// An outcome's values, written by hand: every completion writes them. It buys (A/B,
    /// `caresync-bench store`, release, five runs each) 13,400 completions judged a second at
    /// 71 µs of CPU each, against 12,100 at 77 µs through `JSONEncoder`. The text the generic
    /// `encode` gives, but for a decimal's digits: Swift's shortest that read back as the same
    /// number (`5.0`, `1e-05`). ``decode(_:from:)`` reads both.
    ///
    /// - Throws: `EncodingError.invalidValue` for a decimal that is not finite, as
    ///   `JSONEncoder` does (JSON has no infinity or NaN).
    static func encode(_ values: [OutcomeValue]) throws -> String {
        try "[" + values.map { value in
            var members = [try member(value.value)]
            if let kind = value.kind { members.append(("kind", quoted(kind))) }
            if let unit = value.unit { members.append(("unit", quoted(unit))) }
            return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.json)" }.joined(separator: ",") + "}"
        }.joined(separator: ",") + "]"
    }

    /// The key and JSON of a value, as ``OutcomeValue``'s `Codable` conformance names them.
    private static func member(_ value: OutcomeValue.Value) throws -> (key: String, json: String) {
        switch value {
        case .boolean(let flag): return ("boolean", "\(flag)")
        case .date(let date): return ("date", quoted(ISO8601.string(from: date)))
        case .decimal(let number):
            guard number.isFinite else {
                throw EncodingError.invalidValue(number, .init(
                    codingPath: [], debugDescription: "a decimal value must be finite to be stored, not \(number)"))
            }
            // The shortest text that reads back as the same Double (`1e-05`, `2.5`, `3.0`).
            return ("decimal", "\(number)")
        case .integer(let number): return ("integer", "\(number)")
        case .text(let text): return ("text", quoted(text))
        }
    }

    /// A string map, keys sorted, as ``encode(_:)`` would write it.
    static func encode(_ map: [String: String]) -> String {
        "{" + map.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + quoted($0.value) }.joined(separator: ",") + "}"
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the
    /// rest (slashes and all of Unicode) as it is.
    static func quoted(_ text: String) -> String {
        var json = "\""
        json.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case "\u{8}": json += "\\b"
            case "\u{c}": json += "\\f"
            case _ where scalar.value < 0x20:
                json += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }
}
