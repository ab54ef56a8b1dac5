import CarePlan
import Foundation
import Logging
import Clocks

/// A log handler that writes each record as one whole line to a ``LineOutput`` (standard
/// error by default), never interleaved with another:
///
///     2026-11-24T08:00:00.000Z warning caresync.primary: could not record when a device was seen peer=3f2a… error=…
///
/// Metadata follows the message as `key=value` pairs in key order; values with spaces are
/// quoted. Terminal controls in the record (a device's name, say) are neutralized
/// (``TerminalText``).
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: LineOutput
    private let clock: any WallClock

    public init(
        label: String, level: Logger.Level, output: LineOutput = .standardError, clock: any WallClock = .system
    ) {
        self.label = label
        self.logLevel = level
        self.output = output
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        if let error = event.error { all["error"] = "\(error)" }
        var line = "\(ISO8601.string(from: clock.now)) \(event.level) \(label): \(event.message)"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(Self.quoted("\(value)"))"
        }
        output.write(text: line)
    }

    /// The value as is, or in double quotes (with `"` and `\` escaped and line breaks as
    /// `\n`) when it has spaces, quotes or line breaks, so that one record stays one line.
    static func quoted(_ text: String) -> String {
        guard text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0.isNewline }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where character.isNewline: escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}
