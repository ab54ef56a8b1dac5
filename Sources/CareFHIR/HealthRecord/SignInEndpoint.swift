import Foundation

/// Where a patient's sign-in may go: the FHIR server, and the authorization, token and
/// revocation endpoints its SMART configuration names. A code, a PKCE verifier and tokens
/// travel there, so each must be `https` (plain `http` only to this machine, where a test
/// server runs), with a host, without a user or password in it.
enum SignInEndpoint {
    /// `text` as a URL a sign-in may go to, or why not.
    @discardableResult
    static func check(_ text: String, as role: SignInEndpointRole) throws(HealthRecordError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil
        else { throw .insecureEndpoint(url: text, role: role) }
        guard scheme == "https" || (scheme == "http" && isLoopback(host)) else { throw .insecureEndpoint(url: text, role: role) }
        return url
    }

    /// Whether `host` names this machine.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Whether `location` (a redirect's, relative to `url`) stays on `url`'s scheme, host and
    /// port: the only redirect followed.
    static func sameOrigin(_ location: String, of url: String) -> URL? {
        guard let from = URL(string: url), let to = URL(string: location, relativeTo: from)?.absoluteURL,
              to.scheme == from.scheme, to.host?.lowercased() == from.host?.lowercased(), to.port == from.port
        else { return nil }
        return to
    }
}

/// What an address a sign-in goes to is for, as an error names it.
public enum SignInEndpointRole: String, Sendable, Hashable {
    case server = "FHIR server"
    case authorization = "authorization endpoint"
    case token = "token endpoint"
    case revocation = "revocation endpoint"
}
