import Foundation
import PrivateFiles

/// How this primary is registered with health record servers: the client id, the exact
/// redirect URI on its care app that the server sends the person back to, and for a
/// confidential client where its private key is. Not a secret (the key's path, not the key):
/// the primary writes it (`health-record.json` in the vault's directory) when its care app
/// starts, and `caresync fhir connect` and `fhir status` read it.
public struct HealthRecordApp: Codable, Sendable, Hashable {
    public var clientID: String
    public var redirectURI: String
    /// A confidential client's P-384 private key (PEM), whose public half the server has:
    /// each token request is signed with it (`private_key_jwt`). `nil`: a public client.
    public var keyFile: String?

    /// The client id an administrator registers CareSync under unless told another.
    public static let defaultClientID = "caresync"
    /// The callback's path on the care app.
    public static let callbackPath = "/health-record/callback"

    public init(clientID: String, redirectURI: String, keyFile: String? = nil) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.keyFile = keyFile
    }
}

extension TokenVault {
    private var appPath: String { directory + "/health-record.json" }

    /// The registration the running (or last) primary announced, if any.
    public func app() -> HealthRecordApp? {
        FileManager.default.contents(atPath: appPath).flatMap { try? JSONDecoder().decode(HealthRecordApp.self, from: $0) }
    }

    /// Announces `app` for the command line.
    public func announce(_ app: HealthRecordApp) throws(HealthRecordError) {
        try makeDirectory()
        do {
            try PrivateFiles.replace(appPath, contents: [UInt8](try JSONEncoder().encode(app)))
        } catch {
            throw .vault("\(appPath) cannot be written: \(error)")
        }
    }
}
