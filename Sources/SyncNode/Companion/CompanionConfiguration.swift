import CareBackup
import CarePlan
import Foundation
import Logging
import NIOCore
import SyncProtocol
import Clocks
import Waiting

/// Where a companion finds its primary.
public struct PrimaryEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The certificate fingerprint the primary advertises (its TXT `fp`), if known: while
    /// pairing, a primary presenting another certificate is refused.
    public var fingerprint: String?

    public init(host: String, port: Int, fingerprint: String? = nil) {
        self.host = host
        self.port = port
        self.fingerprint = fingerprint
    }

    /// Parses `HOST:PORT`.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65_535).contains(port), colon > text.startIndex else { return nil }
        self.init(host: String(text[..<colon]), port: port)
    }

    public var description: String { "\(host):\(port)" }
}

/// How a companion node connects, waits and retries.
public struct CompanionConfiguration: Sendable {
    public var role: DeviceRole
    /// A human label, such as "Kitchen watch".
    public var name: String
    /// Where the node keeps its id, its last context and its outbox.
    public var stateDirectory: String
    /// Where the node keeps its identity, if not in ``stateDirectory``: a household device
    /// following several primaries is one device to each of them (``Household``).
    public var identityDirectory: String?
    /// Finds the primary before each connection attempt, given the id of the primary the
    /// companion followed last (if any). The default returns a fixed address.
    public var locate: @Sendable (_ knownPrimaryID: String?) async throws -> PrimaryEndpoint
    public var softwareVersion = "caresync \(CareSyncVersion.current)"
    /// Whether to reach the primary only through its relays, never directly (for tests and
    /// demonstrations of a device away from home). Otherwise the relays are tried, in order,
    /// when the primary cannot be found or reached directly.
    public var relayOnly = false
    /// TLS unless measuring what it costs.
    public var security = TransportSecurity.tls
    /// How long to wait for a completion's reply before leaving it to the outbox (longer
    /// than the store's 10 s busy timeout, so a locked store does not look like a dead link).
    public var replyTimeout: Duration = .seconds(15)
    public var connectTimeout: Duration = .seconds(5)
    /// The primary must answer the Hello within this time.
    public var handshakeTimeout: Duration = .seconds(5)
    /// A connection that has received nothing (not even a Pong) for this long is given
    /// up and made again.
    public var idleTimeout: Duration = .seconds(45)
    /// What the handshake and idle deadlines wait on (``PrimaryConfiguration/deadlineClock``).
    public var deadlineClock: any WallClock = .system
    /// The waits between connection attempts: from 100 ms, doubling with each failure up to
    /// 5 s, each shortened by up to 30 % so that companions do not reconnect in lockstep.
    public var backoff = Backoff(first: .milliseconds(100), maximum: .seconds(5), jitter: 0.3)
    public var maximumFrameBytes = Frame.defaultMaximumBytes
    /// Whether to offer the `context-delta` feature: receive what changed since the context
    /// held rather than every context whole (protocol section 10). Off, the companion
    /// speaks as a client that understands only snapshots.
    public var contextDeltas = true
    /// How long a context delta waits to be written to the state file, with the deltas that
    /// follow it: a burst of deltas costs one write. The companion shows each at once; a
    /// crash of its process loses at most this much (the primary then sends it again).
    public var contextWriteDelay: Duration = .milliseconds(200)
    /// Where a household device keeps the care reports shared with it (protocol section 20);
    /// with one, it offers the `report` feature. Other roles never receive reports.
    public var reportsDirectory: String?
    /// Whether a household device asks for missed-dose alerts (protocol section 22) and to be
    /// told when the primary's backups fail (section 24). Other roles never receive them.
    public var alerts = false
    /// A household device's standby copy of the primary's store (protocol section 23); with
    /// one, it offers the `standby` feature, which the primary accepts only from a device
    /// paired with `--standby`.
    public var standby: StandbyCopy?
    /// The wall clock, for completions' device time and clocks, and what retries, pings, reply
    /// timeouts and the context's write delay wait on; tests can pass their own.
    public var clock: any WallClock = .system
    /// Where the companion logs connections, retries and the failures it recovers from
    /// (with `primary`, `messageID` and `revision` metadata). Silent unless given.
    public var logger = Logger(label: "caresync.companion", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A companion of a primary at a fixed address.
    public init(role: DeviceRole, name: String, stateDirectory: String, endpoint: PrimaryEndpoint) {
        self.init(role: role, name: name, stateDirectory: stateDirectory) { _ in endpoint }
    }

    /// A companion that finds its primary with `locate` (on the network, say).
    public init(
        role: DeviceRole, name: String, stateDirectory: String,
        locate: @escaping @Sendable (_ knownPrimaryID: String?) async throws -> PrimaryEndpoint
    ) {
        self.role = role
        self.name = name
        self.stateDirectory = stateDirectory
        self.locate = locate
    }

}
