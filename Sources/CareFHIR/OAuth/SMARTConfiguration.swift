import Foundation

/// A FHIR server's `.well-known/smart-configuration`: where its authorization server's
/// endpoints are and what it supports. Every member is optional here; each client checks
/// those it needs.
struct SMARTConfiguration: Decodable, Sendable {
    var authorization_endpoint: String?
    var token_endpoint: String?
    var revocation_endpoint: String?
    var code_challenge_methods_supported: [String]?
    var scopes_supported: [String]?
    var capabilities: [String]?
    var grant_types_supported: [String]?
    var token_endpoint_auth_methods_supported: [String]?
    var token_endpoint_auth_signing_alg_values_supported: [String]?

    /// Where a server with base URL `fhirBase` (no final slash) publishes its configuration.
    static func url(of fhirBase: String) -> String { "\(fhirBase)/.well-known/smart-configuration" }

    /// Whether the server takes SMART v2 scopes (`patient/Observation.c`), which its
    /// capabilities or its scopes say; a server that says neither takes v1's.
    var takesV2Scopes: Bool {
        capabilities?.contains("permission-v2") == true
            || scopes_supported?.contains { scope in scope.hasPrefix("patient/") && !scope.hasSuffix(".read") && !scope.hasSuffix(".write") && !scope.hasSuffix(".*") } == true
    }
}
