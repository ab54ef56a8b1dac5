import Foundation

/// The app a ``FHIRTestServer`` lets patients sign in to (SMART App Launch, standalone): its
/// client id and the redirect URIs registered for it, and the patients who may sign in.
public struct SMARTLaunchRegistration: Sendable {
    public var clientID: String
    /// The exact redirect URIs a launch may name.
    public var redirectURIs: [String]
    /// The patients' logins: user name → (password, patient id).
    public var users: [String: (password: String, patient: String)]
    /// Whether the server lists SMART v2 scopes (else only v1's).
    public var v2Scopes = true
    /// How long an access token lasts, and a code, in seconds.
    public var tokenLifetime = 300
    public var codeLifetime = 60
    /// For a confidential client, its key (with the same client id): every token request and
    /// revocation must carry an assertion signed with it (`private_key_jwt`). `nil`: a public
    /// client, known by its id alone.
    public var clientKey: SMARTClientRegistration?
    /// Members of the discovery document given other values (`"token_endpoint": "http://…"`):
    /// a server that sends the sign-in elsewhere, for what a client accepts.
    public var announced: [String: String] = [:]

    public init(clientID: String, redirectURIs: [String], users: [String: (password: String, patient: String)]) {
        self.clientID = clientID
        self.redirectURIs = redirectURIs
        self.users = users
    }
}

extension SMARTLaunchAuthority {
    /// Adds the members of the SMART configuration a standalone launch needs.
    func describe(in configuration: inout SMARTConfiguration, base: String) {
        let v2 = ["patient/MedicationRequest.rs", "patient/Medication.rs", "patient/Patient.rs", "patient/Observation.c",
                  "patient/Device.c", "patient/MedicationAdministration.c"]
        let v1 = ["patient/MedicationRequest.read", "patient/MedicationOrder.read", "patient/Medication.read", "patient/Patient.read",
                  "patient/Observation.write", "patient/Device.write", "patient/MedicationAdministration.write"]
        configuration.authorizationEndpoint = base + Self.authorizePath
        configuration.revocationEndpoint = base + Self.revokePath
        configuration.codeChallengeMethodsSupported = ["S256"]
        configuration.scopesSupported = SMARTConfiguration.union(
            configuration.scopesSupported, ["launch/patient", "openid", "fhirUser", "offline_access"] + (registration.v2Scopes ? v2 : v1))
        configuration.capabilities = SMARTConfiguration.union(configuration.capabilities, [
            "launch-standalone", registration.clientKey == nil ? "client-public" : "client-confidential-asymmetric",
            "context-standalone-patient", "permission-patient", "permission-offline", registration.v2Scopes ? "permission-v2" : "permission-v1",
        ])
        configuration.tokenEndpointAuthMethodsSupported = SMARTConfiguration.union(
            configuration.tokenEndpointAuthMethodsSupported, registration.clientKey == nil ? ["none"] : ["private_key_jwt"])
    }
}
