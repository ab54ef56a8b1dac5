import ArgumentParser
import CareFHIR
import CarePlan
import Foundation
import LineOutput
import StrictJSON

/// `caresync fhir status`: the health record connection, never its tokens.
struct FHIRStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the connected health record: server, patient, granted scopes, expiry, redirect URI.")

    @OptionGroup var options: StoreOptions

    @Flag(help: "Print it as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let vault = options.vault
            let connection = try vault.connection()
            let app = vault.app()
            if json {
                var line: [String: JSONValue] = ["connected": .bool(connection != nil)]
                if let app { line["clientID"] = .string(app.clientID); line["redirectURI"] = .string(app.redirectURI) }
                if let connection {
                    line["server"] = .string(connection.server)
                    line["patient"] = connection.patient.map { .string($0) } ?? .null
                    line["scopes"] = .string(connection.grantedScope)
                    line["expiresAt"] = connection.expiresAt.map { .string(ISO8601.string(from: $0)) } ?? .null
                    line["signInNeeded"] = connection.signInNeeded.map { .string($0) } ?? .null
                    line["notGranted"] = .array(connection.uploadsNotGranted.map { .string($0) })
                }
                emitJSON(line)
                return
            }
            if let connection {
                emit("Connected to \(connection.server), patient \(connection.patient ?? "not given")")
                emit("Access granted: \(connection.grantedScope)")
                if let expiry = connection.expiresAt { emit("Access token until \(ISO8601.string(from: expiry)) (refreshed by the primary)") }
                if let reason = connection.signInNeeded { emit("Sign in again: \(reason)") }
                let notGranted = connection.uploadsNotGranted
                emit(notGranted.isEmpty ? "The running primary sends measurements and doses to it"
                     : "Measurements and doses are not sent: creating \(notGranted.joined(separator: ", ")) was not granted")
            } else {
                emit("No health record is connected")
            }
            if let app {
                emit("Registered as client \(app.clientID) with redirect URI \(app.redirectURI)")
            } else {
                emit("The redirect URI is known once `caresync primary --web` runs")
            }
        }
    }
}
