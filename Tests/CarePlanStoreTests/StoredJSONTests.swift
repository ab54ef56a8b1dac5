import CarePlan
@testable import CarePlanStore
import Foundation
import Testing

/// The hand-written JSON of outcome values and string maps: read back as the same values,
/// and the text `JSONEncoder` gives wherever the two may agree.
struct StoredJSONTests {
    /// Text that JSON must escape, and text it must not.
    static let awkward = [
        "", "plain", "quote \" inside", "back\\slash", "a/slash", "line\nbreak", "tab\tand\rreturn",
        "\u{0}\u{1}\u{8}\u{c}\u{1f}", "é, 漢字, 🫀", "line\u{2028}separator", "\u{7f}del",
    ]

    static let values: [OutcomeValue] = awkward.map { OutcomeValue(.text($0), unit: $0, kind: $0) }
        + [Int.min, -1, 0, 7, Int.max].map { OutcomeValue(.integer($0), unit: "mg") }
        + [true, false].map { OutcomeValue(.boolean($0), kind: "taken") }
        + [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_680_000.123)].map { OutcomeValue(.date($0)) }

    static let decimals: [Double] = [
        0, -0.0, 0.1, -2.5, 5, 1e-5, 1e20, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 98.6,
    ]

    /// What `JSONEncoder` writes through ``StoredJSON/encode(_:)-(Encodable)`` for the same values.
    static func encoderText(_ values: [OutcomeValue]) throws -> String {
        struct Wrapped: Encodable {
            let values: [OutcomeValue]
            func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }
        }
        return try StoredJSON.encode(Wrapped(values: values))
    }

    @Test func outcomeValuesReadBackEqual() throws {
        let all = Self.values + Self.decimals.map { OutcomeValue(.decimal($0), unit: "°F", kind: "temperature") }
        let text = try StoredJSON.encode(all)
        let read = try StoredJSON.decode([OutcomeValue].self, from: text)
        #expect(read == all)
        // -0.0 == 0.0 for Double: its sign must survive too.
        #expect(read.contains { if case .decimal(let d) = $0.value { d == 0 && d.sign == .minus } else { false } })
        #expect(try StoredJSON.encode([OutcomeValue]()) == "[]")
    }

    @Test func outcomeValuesAreTheTextJSONEncoderGives() throws {
        // Every value but decimals, whose digits JSONEncoder may write otherwise (`5` for `5.0`).
        for value in Self.values {
            let (mine, theirs) = (try StoredJSON.encode([value]), try Self.encoderText([value]))
            #expect(mine == theirs, "\(mine) against \(theirs)")
        }
        #expect(try StoredJSON.encode(Self.values) == Self.encoderText(Self.values))
    }

    @Test func aDecimalThatIsNotFiniteIsRefusedAsJSONEncoderRefusesIt() {
        for number in [Double.infinity, -.infinity, .nan] {
            #expect(throws: EncodingError.self) { try StoredJSON.encode([OutcomeValue(.decimal(number))]) }
            #expect(throws: EncodingError.self) { try Self.encoderText([OutcomeValue(.decimal(number))]) }
        }
    }

    @Test func stringMapsAreSortedEscapedAndReadBackEqual() throws {
        let map = Dictionary(uniqueKeysWithValues: Self.awkward.enumerated().map { ("k\($0.offset) \($0.element)", $0.element) })
        let text = StoredJSON.encode(map)
        #expect(try StoredJSON.decode([String: String].self, from: text) == map)
        #expect(StoredJSON.encode(["b": "2", "a": "1", "c/d": "\"3\""]) == #"{"a":"1","b":"2","c/d":"\"3\""}"#)
        #expect(StoredJSON.encode([String: String]()) == "{}")
    }
}
