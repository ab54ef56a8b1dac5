import CareBackup
import Foundation
import NIOCore
import NodeIdentity
import Clocks

/// Where and how the care app is served.
public struct WebConfiguration: Sendable {
    /// The address to listen on: loopback unless a person chose otherwise.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    public var port = 0
    /// Names browsers may call the app by besides its address, such as the primary's
    /// `.local` name: a request whose `Host` names anything else is refused, so that a page
    /// of another site cannot reach the app through a name it controls (DNS rebinding).
    public var serverNames: [String] = []
    /// Serve HTTPS with this identity's key. Required off loopback.
    public var identity: NodeIdentity?
    /// The certificate served over HTTPS, naming ``servedHosts()`` for browsers
    /// (``ServerCertificate``); the identity's own, which names none, without one.
    public var serverCertificate: ServerCertificate?
    /// How long a sign-in lasts.
    public var sessionLifetime: TimeInterval = 14 * 24 * 3600
    /// The largest request body accepted (forms are small).
    public var maximumBodyBytes = 16 * 1024
    /// The most live streams open at once (a page each); more are refused until some close.
    public var maximumLiveStreams = 64
    /// The most live streams one session holds: a newer page replaces its oldest.
    public var maximumLiveStreamsPerSession = 6
    /// How long a connection may stay without a whole request (its head, or its body's next
    /// part) before it is closed: idle keep-alive connections and slowly sent headers alike.
    public var idleTimeout: Duration = .seconds(20)
    /// How often an open live stream gets a comment, so that proxies and browsers keep it.
    public var liveHeartbeat: Duration = .seconds(15)
    /// How many PDF reports may wait while one prints (each print starts a Chromium); more are refused.
    public var reportsWaiting = 2
    /// Wrong sign-in codes one source (an address; all of loopback, an IPv6 /64) may send at
    /// once; it regains one every ``signInRefill``.
    public var signInAttemptsPerSource = 5
    /// How long a source waits for its next attempt once it has none: the longest anyone
    /// sharing a guesser's address is kept from signing in.
    public var signInRefill: TimeInterval = 60
    /// The clock sessions and codes are judged on.
    public var clock: any WallClock = .system
    /// How the primary's scheduled backups stand: while they fail, every page says so.
    public var backupHealth: BackupHealth?
    /// Connecting the patient's health record (`/health-record`); without it the page is not served.
    public var healthRecord: HealthRecordSettings?

    public init() {}

    /// Whether `host` is a loopback address, which only this machine reaches.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Every host a request may name (lowercase, IPv6 without brackets): ``serverNames``,
    /// the address listened on (every address of this machine's interfaces for a wildcard
    /// address), and on loopback `localhost` and the loopback addresses. The hosts the app is
    /// served under, which its certificate names.
    public func servedHosts() -> Set<String> {
        var hosts = Set(([host] + serverNames).map { $0.lowercased() })
        if isLoopback { hosts.formUnion(["localhost", "127.0.0.1", "::1"]) }
        if host == "0.0.0.0" || host == "::" {
            let devices = (try? System.enumerateDevices()) ?? []
            hosts.formUnion(devices.compactMap { $0.address?.ipAddress?.lowercased() })
        }
        return hosts
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
