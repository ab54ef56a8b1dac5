import Foundation

/// Checks that data is standard JSON (RFC 8259) before a lenient parser reads it.
///
/// Foundation's parsers accept trailing commas and duplicate field names (JSONDecoder keeps
/// the first, JSONSerialization the last) and name no position for what they refuse. This
/// refuses, with line and column: anything outside the RFC's grammar (comments, `NaN`,
/// single quotes, leading zeros, `+1`, `.5`, control characters in strings, bad escapes,
/// unpaired surrogates, invalid UTF-8), trailing commas, a field name used twice in one
/// object, numbers too large for a `Double`, and nesting deeper than Foundation reads. A
/// leading byte order mark is ignored, as the RFC allows.
public enum JSONSyntax {
    /// The deepest nesting of arrays and objects Foundation reads.
    public static let maximumDepth = 512

    public static func check(_ data: Data) throws(JSONSyntaxError) {
        var scanner = Scanner(bytes: Array(data))
        try scanner.document()
    }
}

private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func document() throws(JSONSyntaxError) {
        skipWhitespace()
        try value(depth: 0)
        skipWhitespace()
        guard current == nil else { throw unexpected("the end of the file after the JSON value") }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) {
        guard let byte = current else { throw unexpected("a JSON value") }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): _ = try string(keepingValue: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            let word = self.word(at: index)
            guard ["true", "false", "null"].contains(word) else { throw unexpected("a JSON value") }
            index += word.utf8.count
        default: throw unexpected("a JSON value")
        }
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) {
        guard depth <= JSONSyntax.maximumDepth else { throw tooDeep() }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return }
        var names = Set<String>()
        while true {
            guard current == UInt8(ascii: "\"") else { throw unexpected("a field name in double quotes") }
            let start = index
            let name = try string(keepingValue: true)
            guard names.insert(name).inserted else { throw error(at: start, "duplicate field \"\(name)\"") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw unexpected("\":\" after the field name") }
            index += 1
            skipWhitespace()
            try value(depth: depth)
            guard try separator(closing: "}") else { return }
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) {
        guard depth <= JSONSyntax.maximumDepth else { throw tooDeep() }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return }
        while true {
            try value(depth: depth)
            guard try separator(closing: "]") else { return }
        }
    }

    /// After a member or element: `true` after a comma (another one follows), `false` after `closing`.
    mutating func separator(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","):
            let comma = index
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: closing) { throw error(at: comma, "trailing comma before \"\(closing)\"") }
            return true
        case UInt8(ascii: closing):
            index += 1
            return false
        default:
            throw unexpected("\",\" or \"\(closing)\"")
        }
    }

    mutating func number() throws(JSONSyntaxError) {
        let start = index
        func digits() { while let byte = current, (0x30...0x39).contains(byte) { index += 1 } }
        func isDigit() -> Bool { current.map { (0x30...0x39).contains($0) } ?? false }
        if current == UInt8(ascii: "-") { index += 1 }
        guard isDigit() else { throw unexpected("a digit after \"-\"") }
        if current == UInt8(ascii: "0") {
            index += 1
            if isDigit() {
                digits()
                throw error(at: start, "leading zero in the number \(text(start..<index))")
            }
        } else {
            digits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard isDigit() else { throw unexpected("a digit after the decimal point") }
            digits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard isDigit() else { throw unexpected("a digit in the exponent") }
            digits()
        }
        let literal = text(start..<index)
        guard Double(literal)?.isFinite == true else { throw error(at: start, "the number \(literal) is too large") }
    }

    /// Reads a string from its opening quote; its value only where `keepingValue` (field names).
    mutating func string(keepingValue: Bool) throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var value: [UInt8] = []
        while true {
            guard let byte = current else { throw error(at: start, "the string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return keepingValue ? String(decoding: value, as: UTF8.self) : ""
            case UInt8(ascii: "\\"):
                let scalar = try escape()
                if keepingValue { value += Array(String(scalar).utf8) }
            case ..<0x20:
                throw error(at: index, "a control character (\(Self.codePoint(UInt32(byte)))) must be escaped in a string")
            case ..<0x80:
                if keepingValue { value.append(byte) }
                index += 1
            default:
                var iterator = bytes[index...].makeIterator()
                var parser = Unicode.UTF8.ForwardParser()
                guard case .valid(let encoded) = parser.parseScalar(from: &iterator) else {
                    throw error(at: index, "invalid UTF-8 in a string")
                }
                if keepingValue { value += encoded }
                index += encoded.count
            }
        }
    }

    /// Reads an escape sequence from its backslash.
    mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = index
        index += 2
        guard start + 1 < bytes.count else { throw error(at: start, "the string is not closed") }
        switch bytes[start + 1] {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit(escapeAt: start)
            switch unit {
            case 0xD800..<0xDC00:
                let low = index
                guard bytes[index...].starts(with: Array(#"\u"#.utf8)) else { throw unpaired(start) }
                index += 2
                let second = try hexUnit(escapeAt: low)
                guard (0xDC00..<0xE000).contains(second) else { throw unpaired(start) }
                return Unicode.Scalar(0x10000 + (unit - 0xD800) << 10 + (second - 0xDC00))!
            case 0xDC00..<0xE000:
                throw unpaired(start)
            default:
                return Unicode.Scalar(unit)!
            }
        default:
            throw error(at: start, "invalid escape \"\\\(character(at: start + 1))\" in a string")
        }
    }

    /// The four hex digits after `\u`.
    mutating func hexUnit(escapeAt start: Int) throws(JSONSyntaxError) -> UInt32 {
        let end = min(index + 4, bytes.count)
        guard end - index == 4, let unit = UInt32(text(index..<end), radix: 16),
              bytes[index..<end].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw error(at: start, "expected 4 hex digits after \"\\u\"") }
        index = end
        return unit
    }

    mutating func skipWhitespace() {
        while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
    }

    // MARK: Errors

    func unpaired(_ start: Int) -> JSONSyntaxError {
        error(at: start, "unpaired UTF-16 surrogate \"\(text(start..<min(start + 6, bytes.count)))\"")
    }

    func tooDeep() -> JSONSyntaxError {
        error(at: index, "arrays and objects nested deeper than \(JSONSyntax.maximumDepth) levels")
    }

    /// What was expected at the current position and what is there instead.
    func unexpected(_ expected: String) -> JSONSyntaxError {
        guard let byte = current else { return error(at: index, "expected \(expected), found the end of the file") }
        if byte == UInt8(ascii: "/"), let next = bytes.dropFirst(index + 1).first,
           next == UInt8(ascii: "/") || next == UInt8(ascii: "*") {
            return error(at: index, "comments are not allowed in JSON")
        }
        if byte == UInt8(ascii: "\"") { return error(at: index, "expected \(expected), found a string") }
        let word = self.word(at: index)
        return error(at: index, "expected \(expected), found \"\(word.isEmpty ? character(at: index) : word)\"")
    }

    /// The letters, digits and underscores from `offset`, such as `NaN` or `True`.
    func word(at offset: Int) -> String {
        let letters = bytes[offset...].prefix { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
        }
        return String(decoding: letters, as: UTF8.self)
    }

    /// The character at `offset` as a message shows it: control characters and invalid
    /// UTF-8 as a code point.
    func character(at offset: Int) -> String {
        var iterator = bytes[offset...].makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        guard case .valid(let encoded) = parser.parseScalar(from: &iterator) else {
            return "byte 0x" + String(bytes[offset], radix: 16, uppercase: true)
        }
        let scalar = Unicode.UTF8.decode(encoded)
        let visible = !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
            && scalar.properties.generalCategory != .format
        return visible ? String(scalar) : Self.codePoint(scalar.value)
    }

    static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// An error at byte `offset`: its line, and its column in characters (a byte order mark not counted).
    func error(at offset: Int, _ message: String) -> JSONSyntaxError {
        let before = bytes[..<offset]
        let line = before.count { $0 == 0x0A } + 1
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? (bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        let column = bytes[lineStart..<offset].count { $0 & 0xC0 != 0x80 } + 1
        return JSONSyntaxError(line: line, column: column, message: message)
    }
}
