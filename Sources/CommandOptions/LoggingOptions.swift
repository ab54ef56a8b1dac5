import ArgumentParser
import LineOutput
import Logging

/// `--log-level`, which every long-running program of CareSync takes: its log goes to
/// standard error, one ``LineLogHandler`` line per record, at this level and above.
public struct LoggingOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp(
        "Log records at this level and above to stderr: trace, debug, info, notice, warning, error, critical.",
        valueName: "level"))
    public var logLevel: Logger.Level = .notice

    public init() {}

    /// Makes every `Logger` of the process write to standard error at ``logLevel``, and
    /// returns one labelled `label`. Call once, first thing.
    public func bootstrap(_ label: String) -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { LineLogHandler(label: $0, level: level) }
        return Logger(label: label)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
