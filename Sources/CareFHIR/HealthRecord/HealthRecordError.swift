/// Why connecting to a patient's health record, or using the connection, failed. No case
/// carries a token, a code or a verifier.
public enum HealthRecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server publishes no SMART configuration that a standalone patient launch can use.
    case noSMARTLaunch(server: String, reason: String)
    /// The server, or its authorization server, could not be asked.
    case unreachable(url: String, detail: String)
    /// A sign-in would go somewhere not `https` (plain `http` is taken only to this machine).
    case insecureEndpoint(url: String, role: SignInEndpointRole)
    /// The callback's `state` is not one handed out here, was used already, belongs to
    /// another session, or is too old.
    case unknownState
    /// The person, or the authorization server, refused the authorization (OAuth's error).
    case refused(String)
    /// The token endpoint would not exchange the code, or answered with no usable token.
    case exchangeFailed(String)
    /// The refresh token was refused: the person must sign in again.
    case signInAgain(String)
    /// No health record is connected.
    case notConnected
    /// The kept connection cannot be read or written.
    case vault(String)
    /// A confidential client's key cannot be read or cannot sign.
    case clientKey(keyFile: String, reason: String)

    public var description: String {
        switch self {
        case .noSMARTLaunch(let server, let reason):
            "\(server) offers no SMART App Launch: \(reason)"
        case .unreachable(let url, let detail):
            "\(url) cannot be reached: \(detail)"
        case .insecureEndpoint(let url, let role):
            "the \(role.rawValue) \(url) is not an https address: a sign-in goes only over https (plain http only to this machine)"
        case .unknownState:
            "this sign-in was not started here, was finished already or took too long: start it again"
        case .refused(let reason):
            "the health record refused access: \(reason)"
        case .exchangeFailed(let reason):
            "the health record did not give access: \(reason)"
        case .signInAgain(let reason):
            "sign in to the health record again: \(reason)"
        case .notConnected:
            "no health record is connected: connect one in the care app or with `caresync fhir connect`"
        case .vault(let reason):
            "the health record's sign-in cannot be kept: \(reason)"
        case .clientKey(let keyFile, let reason):
            "CareSync's client key \(keyFile) cannot sign: \(reason)"
        }
    }
}
