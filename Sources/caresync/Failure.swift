import ArgumentParser
import Foundation
import LineOutput

/// Runs a command body; a refusal becomes one line on stderr and exit status 1.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        LineOutput.standardError.write(line: "caresync: \(error)")
        throw ExitCode.failure
    }
}

/// A request the command line itself refuses, such as a value that does not parse.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}
