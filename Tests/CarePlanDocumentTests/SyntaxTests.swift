import CarePlan
import CarePlanDocument
import Foundation
import Testing

/// Only standard JSON (RFC 8259) is read: what Foundation would let through or report
/// without a position is refused with line, column and what was expected.
struct SyntaxTests {
    static let syntaxErrors: [(json: String, line: Int, column: Int, message: String)] = [
        // Accepted by Foundation's parsers.
        ("{\n  \"title\": \"T\",\n  \"timeZone\": \"UTC\",\n}", 3, 20, #"trailing comma before "}""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [],}"#, 1, 51, #"trailing comma before "}""#),
        (#"{"title": "T", "timeZone": "UTC", "contacts": [{"id": "c", "kind": "personal", "givenName": "C"},]}"#, 1, 97, #"trailing comma before "]""#),
        (#"{"title": "T", "timeZone": "UTC", "title": "U"}"#, 1, 35, #"duplicate field "title""#),
        (#"{"title": "T", "timeZone": "UTC", "ti\u0074le": "U"}"#, 1, 35, #"duplicate field "title""#),
        // Refused by Foundation, but without a position.
        ("{\"title\": \"T\", // the title\n \"timeZone\": \"UTC\"}", 1, 16, "comments are not allowed in JSON"),
        ("{\"title\": \"T\", /* zone */ \"timeZone\": \"UTC\"}", 1, 16, "comments are not allowed in JSON"),
        (#"{"title": "T", "timeZone": "UTC", "start": NaN}"#, 1, 44, #"expected a JSON value, found "NaN""#),
        (#"{"title": "T", "timeZone": "UTC", "start": -Infinity}"#, 1, 45, #"expected a digit after "-", found "Infinity""#),
        (#"{"title": "T", "timeZone": "UTC", "start": 007}"#, 1, 44, "leading zero in the number 007"),
        (#"{"title": "T", "timeZone": "UTC", "start": +1}"#, 1, 44, #"expected a JSON value, found "+""#),
        (#"{"title": "T", "timeZone": "UTC", "start": 1.}"#, 1, 46, #"expected a digit after the decimal point, found "}""#),
        (#"{"title": "T", "timeZone": "UTC", "start": 1e400}"#, 1, 44, "the number 1e400 is too large"),
        (#"{'title': "T"}"#, 1, 2, #"expected a field name in double quotes, found "'""#),
        (#"{title: "T"}"#, 1, 2, #"expected a field name in double quotes, found "title""#),
        (#"{"title" "T"}"#, 1, 10, #"expected ":" after the field name, found a string"#),
        (#"{"title": "T" "timeZone": "UTC"}"#, 1, 15, #"expected "," or "}", found a string"#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [ {"id": "a",, } ]}"#, 1, 62, #"expected a field name in double quotes, found ",""#),
        ("{\"title\": \"a\tb\", \"timeZone\": \"UTC\"}", 1, 13, "a control character (U+0009) must be escaped in a string"),
        (#"{"title": "a\xb", "timeZone": "UTC"}"#, 1, 13, #"invalid escape "\x" in a string"#),
        (#"{"title": "\ud83d", "timeZone": "UTC"}"#, 1, 12, #"unpaired UTF-16 surrogate "\ud83d""#),
        (#"{"title": "\u12", "timeZone": "UTC"}"#, 1, 12, #"expected 4 hex digits after "\u""#),
        ("{\"title\": \"Gr\u{FC}\u{DF}e\", \"timeZone\": \"UTC\"} true", 1, 39, #"expected the end of the file after the JSON value, found "true""#),
        (#"{"title": "T", "timeZone": "UTC""#, 1, 33, #"expected "," or "}", found the end of the file"#),
        (#"{"title": "T"#, 1, 11, "the string is not closed"),
        ("", 1, 1, "expected a JSON value, found the end of the file"),
        ("\u{FEFF}{\"title\": \"T\",}", 1, 14, #"trailing comma before "}""#),
        ("{\"title\": \"T\",\u{A0}\"timeZone\": \"UTC\"}", 1, 15, #"expected a field name in double quotes, found "U+00A0""#),
    ]

    @Test(arguments: syntaxErrors)
    func syntaxErrorsNameLineAndColumn(json: String, line: Int, column: Int, message: String) throws {
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        }
        #expect(error.position == PlanDocumentError.Position(line: line, column: column))
        #expect(error.message == message)
        #expect(error.description == "plan.json: line \(line), column \(column): \(message)")
    }

    @Test func invalidUTF8IsRefusedWhereItIs() throws {
        let data = Data(#"{"title": "a"#.utf8) + Data([0xC3, 0x28]) + Data(#"", "timeZone": "UTC"}"#.utf8)
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.decode(data, file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        }
        #expect(error.description == "plan.json: line 1, column 13: invalid UTF-8 in a string")
    }

    @Test func nestingDeeperThanFoundationReadsIsRefused() throws {
        let deep = #"{"title": "T", "timeZone": "UTC", "x": "# + String(repeating: "[", count: 600)
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.decode(Data(deep.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        }
        #expect(error.position == PlanDocumentError.Position(line: 1, column: 40 + 511))
        #expect(error.message == "arrays and objects nested deeper than 512 levels")
    }

    @Test func standardJSONWithEscapesAndUnicodeIsRead() throws {
        let json = "\u{FEFF}{\"title\": \"Gr\u{FC}\u{DF}e \\ud83d\\ude00 \\\"\\/\\n\", \"timeZone\": \"UTC\",\r\n\t\"activities\": [], \"contacts\": []}"
        let plan = try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        #expect(plan.title == "Grüße 😀 \"/\n")
    }
}
