import Foundation
import NodeIdentity

/// Where and how the care app is served.
public struct WebConfiguration: Sendable {
    /// The address to listen on: loopback unless a person chose otherwise.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    public var port = 0
    /// Serve HTTPS with this certificate (the primary's identity). Required off loopback.
    public var identity: NodeIdentity?
    /// How long a sign-in lasts.
    public var sessionLifetime: TimeInterval = 14 * 24 * 3600
    /// The largest request body accepted (forms are small).
    public var maximumBodyBytes = 16 * 1024
    /// The most live streams open at once (a page each); more are refused until some close.
    public var maximumLiveStreams = 64
    /// How often an open live stream gets a comment, so that proxies and browsers keep it.
    public var liveHeartbeat: Duration = .seconds(15)
    /// The clock sessions and codes are judged on.
    public var now: @Sendable () -> Date = { Date() }

    public init() {}

    /// Whether `host` is a loopback address, which only this machine reaches.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Why the configuration cannot be served, if it cannot.
    func check() throws(WebServerError) {
        if !isLoopback && identity == nil {
            throw .needsTLS(host: host)
        }
    }
}

/// Why the care app could not start.
public enum WebServerError: Error, Hashable, Sendable, CustomStringConvertible {
    case needsTLS(host: String)
    case notListening(String)

    public var description: String {
        switch self {
        case .needsTLS(let host): "serving the care app on \(host), beyond this machine, needs TLS: give it the primary's identity"
        case .notListening(let reason): "the care app is not listening: \(reason)"
        }
    }
}
