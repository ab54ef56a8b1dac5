import CarePlan
import Foundation
@_exported import StrictJSON

/// The one encoder of every JSON line CareSync prints: sorted keys, unescaped slashes,
/// timestamps as `ISO8601` strings.
public enum JSONLine {
    /// `value` as one line of JSON, without the newline.
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Writes `value` as one line of JSON to standard output (``JSONLine``).
public func emitJSON(_ value: some Encodable) throws {
    emitVerbatim(try JSONLine.encode(value))
}

/// Writes a line built of JSON values to standard output. A tree of ``JSONValue``s always
/// encodes (non-finite numbers become `null`).
public func emitJSON(_ fields: [String: JSONValue]) {
    emitVerbatim((try? JSONLine.encode(fields)) ?? "{}")
}
