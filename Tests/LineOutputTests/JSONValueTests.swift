import Foundation
import LineOutput
import Testing

/// The one JSON value type: built in place for output lines, read and written back whole.
struct JSONValueTests {
    @Test func aLineBuiltInPlaceEncodesAsWritten() throws {
        let line: [String: JSONValue] = [
            "event": "listening", "port": .int(8443), "p50": .double(2.34), "tiny": .double(1e-7),
            "ok": true, "none": nil, "list": [1, "two"], "broken": .double(.nan), "far": .double(.infinity),
        ]
        #expect(try JSONLine.encode(line)
            == #"{"broken":null,"event":"listening","far":null,"list":[1,"two"],"none":null,"ok":true,"p50":2.34,"port":8443,"tiny":0.0000001}"#)
    }

    @Test func whatIsReadIsWrittenBackWithoutBinaryRounding() throws {
        let text = #"{"a":[0.1,123456789012345678901,-2.5e3],"b":{"c":null,"d":false,"e":"é/x"}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(String(decoding: value.data, as: UTF8.self) == #"{"a":[0.1,123456789012345678901,-2500],"b":{"c":null,"d":false,"e":"é/x"}}"#)
        #expect(value["b"]?["e"]?.string == "é/x")
        #expect(value["a"]?.array?.count == 3)
        #expect(value["missing"] == nil && value["a"]?["x"] == nil)
    }
}
