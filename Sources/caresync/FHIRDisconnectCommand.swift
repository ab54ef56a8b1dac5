import ArgumentParser
import CareFHIR
import CommandOptions
import LineOutput

/// `caresync fhir disconnect`: revokes the sign-in where the server offers it, and forgets it.
struct FHIRDisconnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disconnect", abstract: "Disconnect the health record: revoke its sign-in (where the server offers it) and forget it.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        try await reportingFailures {
            let revoked = try await options.vault.disconnect(requests: OAuthRequests(logger: logging.bootstrap("caresync.fhir")))
            let said = switch revoked {
            case true?: "Disconnected: the server revoked the sign-in, and it is forgotten"
            case false?: "Disconnected: the server did not confirm the revocation; the sign-in is forgotten here"
            case nil: "Disconnected: the server offers no revocation; the sign-in is forgotten here"
            }
            emit(said)
        }
    }
}
