import CDNSSD

/// Why discovery failed.
public enum DiscoveryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The mDNS daemon does not answer.
    case daemonNotRunning
    /// Nothing answered within the time allowed.
    case timedOut(String)
    case failed(code: Int32)

    init(code: DNSServiceErrorType) {
        // Avahi's compatibility layer reports a missing daemon (or D-Bus) as "unknown".
        self = code == DNSServiceErrorType(kDNSServiceErr_Unknown) ? .daemonNotRunning : .failed(code: code)
    }

    public var description: String {
        switch self {
        case .daemonNotRunning:
            """
            the mDNS daemon (Avahi) is not running: start it (for tests and demos, \
            `scripts/mdns-sandbox start`) or give the primary's address with --connect HOST:PORT
            """
        case .timedOut(let what): "no answer \(what)"
        case .failed(let code): "DNS-SD error \(code)"
        }
    }
}
