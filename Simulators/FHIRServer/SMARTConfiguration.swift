/// The SMART configuration (`/.well-known/smart-configuration`): the endpoints, and what the
/// server supports in lists, each the union of what its parts (backend services, a launch)
/// support.
struct SMARTConfiguration: Encodable {
    var tokenEndpoint: String
    var authorizationEndpoint: String?
    var revocationEndpoint: String?
    var grantTypesSupported: [String] = []
    var tokenEndpointAuthMethodsSupported: [String] = []
    var tokenEndpointAuthSigningAlgValuesSupported: [String]?
    var codeChallengeMethodsSupported: [String]?
    var scopesSupported: [String] = []
    var capabilities: [String] = []
    /// Members written with these values instead (``SMARTLaunchRegistration/announced``).
    var announced: [String: String] = [:]

    /// `list` with those of `more` it lacks, in order.
    static func union(_ list: [String]?, _ more: [String]) -> [String] {
        let list = list ?? []
        return list + more.filter { !list.contains($0) }
    }

    private struct Member: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Member.self)
        let members: [(String, [String]?)] = [
            ("grant_types_supported", grantTypesSupported), ("token_endpoint_auth_methods_supported", tokenEndpointAuthMethodsSupported),
            ("token_endpoint_auth_signing_alg_values_supported", tokenEndpointAuthSigningAlgValuesSupported),
            ("code_challenge_methods_supported", codeChallengeMethodsSupported), ("scopes_supported", scopesSupported),
            ("capabilities", capabilities),
        ]
        for (name, list) in members where announced[name] == nil {
            try c.encodeIfPresent(list, forKey: Member(stringValue: name))
        }
        let endpoints = [("token_endpoint", tokenEndpoint), ("authorization_endpoint", authorizationEndpoint), ("revocation_endpoint", revocationEndpoint)]
        for (name, endpoint) in endpoints where announced[name] == nil {
            try c.encodeIfPresent(endpoint, forKey: Member(stringValue: name))
        }
        for (name, value) in announced { try c.encode(value, forKey: Member(stringValue: name)) }
    }
}
