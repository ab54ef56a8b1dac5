import ArgumentParser
import CareFHIR
import Foundation
import LineOutput
import PrivateFiles

/// `caresync fhir smart-key --out FILE`: the key CareSync signs its SMART Backend Services
/// client assertions with, and the public JWK Set a FHIR server's administrator registers.
struct FHIRSMARTKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smart-key",
        abstract: "Make a SMART Backend Services signing key (P-384, ES384) and print the JWK Set to register with a FHIR server.",
        discussion: """
            The private key goes to FILE, readable by its owner alone; a key already there is kept \
            and its JWK Set printed again. Give the file to `fhir export`, `fhir observations` \
            (--smart-key) or `primary` (--fhir-smart-key) with the client id the server gave.
            """)

    @Option(help: ArgumentHelp("The private key's file (PEM).", valueName: "file"))
    var out: String

    func run() throws {
        let made = SMARTSigningKey.generate()
        let created: Bool
        do {
            created = try PrivateFiles.createOnce(out, contents: Array(made.pemRepresentation.utf8))
        } catch {
            throw UsageError(description: "cannot make the key: \(error)")
        }
        let key = created ? made : try SMARTSigningKey(file: out)
        emitVerbatim(String(decoding: key.jwks, as: UTF8.self))
    }
}
