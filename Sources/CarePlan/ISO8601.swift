import Foundation

/// ISO 8601 timestamps with milliseconds, as every JSON form of CareSync writes them.
public enum ISO8601 {
    /// `2026-11-23T08:00:00.000Z`, or with the offset of `timeZone` when given.
    public static func string(from date: Date, in timeZone: TimeZone = .gmt) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: timeZone))
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
