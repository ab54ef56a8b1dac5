/// HTML and SVG written by hand: text escaped, elements closed, so a document is well-formed
/// XML (the report's tests read it with an XML parser).
public struct Markup {
    public init() {}

    public private(set) var text = ""

    /// `<name a="v">…</name>`, the content written by `body`.
    public mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], _ body: (inout Markup) -> Void) {
        open(name, attributes)
        body(&self)
        text += "</\(name)>"
    }

    /// `<name a="v">text</name>`.
    public mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], text content: String) {
        element(name, attributes) { $0.append(content) }
    }

    /// `<name a="v"/>`.
    public mutating func empty(_ name: String, _ attributes: KeyValuePairs<String, String> = [:]) {
        text += "<\(name)\(Self.attributes(attributes))/>"
    }

    /// Text, escaped.
    public mutating func append(_ content: String) {
        text += Self.escape(content)
    }

    /// Markup already written (a style sheet, say), as it is.
    public mutating func raw(_ markup: String) {
        text += markup
    }

    private mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String>) {
        text += "<\(name)\(Self.attributes(attributes))>"
    }

    private static func attributes(_ attributes: KeyValuePairs<String, String>) -> String {
        attributes.map { " \($0.key)=\"\(escape($0.value))\"" }.joined()
    }

    public static func escape(_ text: String) -> String {
        // Most text has nothing to escape: it is returned as it is, without a copy.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
            || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
