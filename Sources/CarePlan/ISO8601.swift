import Foundation

/// Timestamps as every JSON form of CareSync writes them: one format, RFC 3339 in UTC with
/// milliseconds (`2026-11-23T08:00:00.000Z`). FHIR resources keep FHIR's own `dateTime`.
public enum ISO8601 {
    /// `2026-11-23T08:00:00.000Z`.
    public static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Parses a timestamp with or without fractional seconds and with any offset.
    public static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    static func decode<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, forKey key: Key) throws -> Date {
        let text = try c.decode(String.self, forKey: key)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "expected an ISO 8601 timestamp, found \"\(text)\"")
        }
        return date
    }
}
