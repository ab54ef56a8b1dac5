/// Where a whole number of a document must lie.
protocol WholeNumberRange {
    static var range: ClosedRange<Int> { get }
}

/// A whole number read from JSON. In a strict document (``CodingUserInfoKey/strictDocument``)
/// it must be one (`2.0` is 2) in `Range.range`, else the error names its path:
/// `expected a whole number from 1 to 96, found 2.5`. Elsewhere any `Int` is read.
struct WholeNumber<Range: WholeNumberRange>: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        guard decoder.isStrictDocument else {
            value = try c.decode(Int.self)
            return
        }
        let range = Range.range
        let expected = "expected a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard let number = try? c.decode(Double.self) else {
            let found = (try? c.decode(String.self)).map { "\"\($0)\"" } ?? (try? c.decode(Bool.self)).map { "\($0)" }
                ?? ((try? decoder.unkeyedContainer()) == nil ? "an object" : "an array")
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(expected), found \(found)")
        }
        // Every Int in these ranges is exact as a Double.
        guard number == number.rounded(), Double(range.lowerBound) <= number, number <= Double(range.upperBound) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(expected), found \(Self.text(number))")
        }
        value = Int(number)
    }

    /// `2.5`, `-1`, `1e30`.
    static func text(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)".replacingOccurrences(of: "e+", with: "e")
    }
}

/// Whole numbers without a limit of their own must fit in 32 bits in a document, as FHIR's
/// `integer` does: days and counts far beyond any care plan are a mistake, and would
/// overflow schedule arithmetic.
enum DocumentNumber {
    static let largest = Int(Int32.max)
}
