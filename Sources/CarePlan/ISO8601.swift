import Foundation

/// Timestamps as every JSON form of CareSync writes them: one format, RFC 3339 in UTC with
/// milliseconds (`2026-11-23T08:00:00.000Z`). FHIR resources keep FHIR's own `dateTime`.
///
/// Timestamps are kept to the millisecond: a date is written rounded to its nearest
/// millisecond, and read as exactly that millisecond (the `Date` the wire protocol makes
/// from the same number of milliseconds), so writing and reading again gives an equal date.
public enum ISO8601 {
    /// `2026-11-23T08:00:00.000Z`.
    public static func string(from date: Date) -> String {
        // Foundation's fractional seconds truncate (…01.024 would print as .023): format
        // the whole seconds and add the milliseconds by integer arithmetic.
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        let whole = Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        return whole.dropLast() + "." + Int(milliseconds - seconds * 1000).zeroPadded(3) + "Z"
    }

    /// Parses a timestamp with or without fractional seconds and with any offset, to the
    /// millisecond.
    public static func date(from text: String) -> Date? {
        guard let parsed = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text)) else { return nil }
        return Date(timeIntervalSince1970: (parsed.timeIntervalSince1970 * 1000).rounded() / 1000)
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
