import Foundation
import Glibc
import LineOutput
import Logging
import TestSupport
import Testing

/// What a pipe received from `body`, which writes through the given output.
private func captured(_ body: (LineOutput) -> Void) -> String {
    var ends: [Int32] = [0, 0]
    precondition(pipe(&ends) == 0)
    body(LineOutput(fileDescriptor: ends[1]))
    close(ends[1])
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = read(ends[0], &buffer, buffer.count), count > 0 { received += buffer[..<count] }
    close(ends[0])
    return String(decoding: received, as: UTF8.self)
}

struct LineLogHandlerTests {
    static let instant = Date(timeIntervalSince1970: 1_795_000_000.5)

    @Test func aRecordIsOneLineWithItsLevelLabelAndSortedMetadata() {
        let text = captured { output in
            var logger = Logger(label: "caresync.primary") {
                LineLogHandler(label: $0, level: .info, output: output, clock: ManualClock(Self.instant))
            }
            logger[metadataKey: "peer"] = "3f2a"
            logger.warning("could not record when the device was seen", metadata: ["error": "disk I/O error", "attempt": "2"])
        }
        #expect(text == "2026-11-18T11:06:40.500Z warning caresync.primary: could not record when the device was seen "
            + "attempt=2 error=\"disk I/O error\" peer=3f2a\n")
    }

    @Test func recordsBelowTheLevelAreNotWritten() {
        let text = captured { output in
            let logger = Logger(label: "caresync.companion") { LineLogHandler(label: $0, level: .notice, output: output) }
            logger.info("connection ended")
            logger.debug("connecting again")
            logger.notice("closing the connection with an Error")
        }
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains(" notice caresync.companion: closing the connection with an Error"))
    }

    /// A value with line breaks or quotes (an error's description, a device's name) stays
    /// on the record's one line and reads back.
    @Test func valuesWithBreaksAndQuotesStayOnOneLine() {
        let text = captured { output in
            let logger = Logger(label: "l") { LineLogHandler(label: $0, level: .trace, output: output) }
            logger.error("failed", metadata: ["name": "Dad's \"watch\"", "error": "line one\nline two", "empty": ""])
        }
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.hasSuffix(#" empty="" error="line one\nline two" name="Dad's \"watch\""\#n"#))
    }

    /// A device's name in a record cannot drive the terminal the log is read on.
    @Test func terminalControlsInARecordAreNeutralized() {
        let text = captured { output in
            let logger = Logger(label: "l") { LineLogHandler(label: $0, level: .trace, output: output) }
            logger.notice("paired \u{1B}]0;owned\u{07}", metadata: ["name": "\u{1B}[2K\u{1B}[1A"])
        }
        #expect(!text.unicodeScalars.contains("\u{1B}"))
        #expect(text.hasSuffix(": paired ␛]0;owned␇ name=␛[2K␛[1A\n"))
    }
}

struct JSONLineTests {
    /// Text that would break hand-made JSON (quotes, backslashes, a line break) is escaped.
    @Test func stringsAreEscapedAndKeysSorted() throws {
        let name = #"Mum's "kitchen" tablet \ 2"# + "\n"
        let line = try JSONLine.encode(["event": "advertised", "name": JSONValue.string(name), "port": 7654] as [String: JSONValue])
        #expect(line == #"{"event":"advertised","name":"Mum's \"kitchen\" tablet \\ 2\n","port":7654}"#)
        let back = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(back?["name"] as? String == name)
    }

    @Test func nestedValuesNullsAndNumbers() throws {
        let value: JSONValue = [
            "time": .orNull(nil), "values": ["7", 2, true], "mean": .double(2.5), "infinite": .double(.infinity),
            "url": "http://127.0.0.1/fhir",
        ]
        #expect(try JSONLine.encode(value)
            == #"{"infinite":null,"mean":2.5,"time":null,"url":"http://127.0.0.1/fhir","values":["7",2,true]}"#)
    }

    @Test func datesAreISO8601WithMilliseconds() throws {
        struct Stamped: Encodable { var at: Date }
        #expect(try JSONLine.encode(Stamped(at: Date(timeIntervalSince1970: 1_795_000_000.024))) == #"{"at":"2026-11-18T11:06:40.024Z"}"#)
    }
}
