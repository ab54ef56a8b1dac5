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

    @Option(help: "Obtain access tokens by SMART Backend Services as this client (with --smart-key).")
    var smartClientID: String?

    @Option(help: ArgumentHelp("The client's P-384 private key (PEM), as `caresync fhir smart-key` makes it.", valueName: "file"))
    var smartKey: String?

    @Option(help: "The SMART scopes to ask for.")
    var smartScope = SMARTBackendClient.defaultScope

    func validate() throws {
        guard batchSize >= 1, attempts >= 1 else { throw ValidationError("--batch-size and --attempts must be at least 1") }
        guard retryDelay >= 0, retryBudget >= 0, timeout > 0 else {
            throw ValidationError("--retry-delay and --retry-budget must not be negative, --timeout must be more than 0")
        }
        try validateAuthorization(tokenFile: tokenFile, smartClientID: smartClientID, smartKey: smartKey, prefix: "")
    }

    /// The poster for `--server`, or `nil` without one.
    func poster(logger: Logger) throws -> TransactionPoster? {
        let policy = RetryPolicy(
            attempts: attempts, firstDelay: .seconds(retryDelay), budget: .seconds(retryBudget), requestTimeout: .seconds(timeout))
        return try server.map { server in
            let authorizer = try fhirAuthorizer(
                server: server, tokenFile: tokenFile, smartClientID: smartClientID, smartKey: smartKey, smartScope: smartScope, logger: logger)
            return try TransactionPoster(url: server, policy: policy, authorizer: authorizer, logger: logger)
        }
    }
}

/// How requests to `server` are authorized: by SMART Backend Services with a client id and
/// key, else with the bearer token in `tokenFile` or `$CARESYNC_FHIR_TOKEN`, else not at all.
func fhirAuthorizer(
    server: String, tokenFile: String?, smartClientID: String?, smartKey: String?, smartScope: String, logger: Logger
) throws -> (any RequestAuthorizer)? {
    if let smartClientID, let smartKey {
        let key = try SMARTSigningKey(file: smartKey)
        return SMARTBackendClient(fhirBase: server, clientID: smartClientID, key: key, scope: smartScope, logger: logger)
    }
    if let tokenFile { return try BearerToken(file: tokenFile) }
    return ProcessInfo.processInfo.environment["CARESYNC_FHIR_TOKEN"].flatMap(BearerToken.init)
}

/// The authorization options (named with `prefix`, such as `fhir-`) go together as they must.
func validateAuthorization(tokenFile: String?, smartClientID: String?, smartKey: String?, prefix: String) throws {
    guard (smartClientID == nil) == (smartKey == nil) else {
        throw ValidationError("--\(prefix)smart-client-id and --\(prefix)smart-key go together")
    }
    guard tokenFile == nil || smartKey == nil else {
        throw ValidationError("give either --\(prefix)token-file or --\(prefix)smart-key, not both")
    }
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
