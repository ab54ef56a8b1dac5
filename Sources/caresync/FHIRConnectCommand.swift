import ArgumentParser
import CareFHIR
import CommandOptions
import Foundation
import LineOutput

/// `caresync fhir connect`: signs the patient in to their health record (SMART App Launch)
/// through the running primary's care app, from any device of the household.
struct FHIRConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect the patient's health record: prints the address to sign in at, and waits for it.",
        discussion: """
            The primary must be running with --web: the health record sends the person back to its \
            care app (the redirect URI `caresync fhir status` prints), which keeps the sign-in \
            sealed beside the primary's identity and imports the patient's medications. Open the \
            printed address on any device of the household, sign in and allow access; the command \
            ends once the primary has the sign-in (exit 0), or with the reason it failed (exit 1).
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("The FHIR server's base URL.", valueName: "url"))
    var server: String

    @Option(help: "The client id the server knows CareSync by (default: the one the running primary announced).")
    var clientID: String?

    @Option(help: ArgumentHelp("How long to wait for the sign-in.", valueName: "seconds"))
    var wait = 600.0

    @Flag(help: "Print the address to open, then the outcome, as JSON lines.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let vault = options.vault
            guard let app = vault.app() else {
                throw UsageError(description: "no care app has announced itself for this store: start `caresync primary --web` first")
            }
            let requests = OAuthRequests(logger: logging.bootstrap("caresync.fhir"))
            var registration = app
            if let clientID { registration.clientID = clientID }
            let launch = try await HealthRecordLaunch.begin(server: server, app: registration, session: nil, now: Date(), requests: requests)
            let pending = PendingLaunches(vault: vault)
            try pending.add(launch, now: Date())
            if json {
                try emitJSON(["authorize": launch.authorizeURL, "redirectURI": app.redirectURI, "server": launch.server])
            } else {
                emit("Open this address on any device to sign in to the health record at \(launch.server):")
                emit(launch.authorizeURL)
            }
            let outcome = try await waitForOutcome(pending, state: launch.state)
            try? pending.remove(state: launch.state)
            switch outcome {
            case .connected(let patient)?:
                let connection = try vault.connection()
                if json {
                    try emitJSON(["connected": launch.server, "patient": patient ?? "", "scopes": connection?.grantedScope ?? ""])
                } else {
                    emit("Connected to \(launch.server) as patient \(patient ?? "not given"); access granted: \(connection?.grantedScope ?? "")")
                }
            case .failed(let reason)?:
                throw UsageError(description: reason)
            case .finishing?, nil:
                throw UsageError(description: "no sign-in came back within \(Int(wait)) s")
            }
        }
    }

    /// How the launch ended, looking every half second until `wait` has passed.
    private func waitForOutcome(_ pending: PendingLaunches, state: String) async throws -> HealthRecordLaunch.Outcome? {
        let deadline = ContinuousClock.now + .seconds(wait)
        while ContinuousClock.now < deadline {
            if let outcome = try pending.outcome(state: state) { return outcome }
            try await Task.sleep(for: .milliseconds(500))
        }
        return nil
    }
}
