import ArgumentParser
import CareFHIR
import Foundation
import LineOutput
import Logging

/// Where an export posts its transactions, and how hard it tries.
struct FHIRServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Post to the FHIR server with this base URL.", valueName: "url"))
    var server: String?

    @Option(help: "Resources (administrations, Observations) per transaction sent to the server.")
    var batchSize = 100

    @Option(help: "Attempts per transaction before giving up.")
    var attempts = 5

    @Option(help: ArgumentHelp("Wait before the second attempt; each further wait doubles (up to 8 s).", valueName: "seconds"))
    var retryDelay = 0.5

    @Option(help: ArgumentHelp("No attempt starts later than this after the first.", valueName: "seconds"))
    var retryBudget = 60.0

    @Option(help: ArgumentHelp("How long one request may take.", valueName: "seconds"))
    var timeout = 30.0

    @Option(help: ArgumentHelp("A bearer token for the server, read from this file (else from $CARESYNC_FHIR_TOKEN).", valueName: "file"))
    var tokenFile: String?

    func validate() throws {
        guard batchSize >= 1, attempts >= 1 else { throw ValidationError("--batch-size and --attempts must be at least 1") }
        guard retryDelay >= 0, retryBudget >= 0, timeout > 0 else {
            throw ValidationError("--retry-delay and --retry-budget must not be negative, --timeout must be more than 0")
        }
    }

    /// The poster for `--server`, or `nil` without one.
    func poster(logger: Logger) throws -> TransactionPoster<ContinuousClock>? {
        let policy = RetryPolicy(
            attempts: attempts, firstDelay: .seconds(retryDelay), budget: .seconds(retryBudget), requestTimeout: .seconds(timeout))
        let token = try bearerToken(file: tokenFile)
        return try server.map { try TransactionPoster(url: $0, policy: policy, token: token, clock: ContinuousClock(), logger: logger) }
    }
}

/// The bearer token in `file`, else in `$CARESYNC_FHIR_TOKEN`, else none.
func bearerToken(file: String?) throws -> BearerToken? {
    if let file { return try BearerToken(file: file) }
    return ProcessInfo.processInfo.environment["CARESYNC_FHIR_TOKEN"].flatMap(BearerToken.init)
}

/// A FHIR Bundle to the file `out`, or to standard output without one.
func writeBundle(_ bundle: Data, to out: String?) throws {
    guard let out else {
        LineOutput.standardOutput.write(Array(bundle) + Array("\n".utf8))
        return
    }
    do {
        try bundle.write(to: URL(fileURLWithPath: out), options: .atomic)
    } catch {
        throw UsageError(description: "cannot write \(out): \((error as NSError).localizedFailureReason ?? "\(error)")")
    }
}
