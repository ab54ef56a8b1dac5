import CareBackup
import CarePlan
import Foundation
import Logging
import NIOCore
import NodeIdentity
import RelayProtocol
import RelayTransport
import SyncProtocol
import Clocks

/// How a primary node listens and what it promises its companions.
public struct PrimaryConfiguration: Sendable {
    /// The address to listen on; loopback unless the household network should reach it.
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 0
    /// A human label for the primary, such as "Kitchen tablet".
    public var name = "CareSync primary"
    /// The primary's key pair and certificate, which companions pin when they pair.
    public var identity: NodeIdentity
    /// TLS unless measuring what it costs.
    public var security = TransportSecurity.tls
    public var softwareVersion = "caresync \(CareSyncVersion.current)"
    /// Companions send a Ping this often.
    public var pingInterval: Duration = .seconds(15)
    /// A connection that has received nothing for this long is closed.
    public var idleTimeout: Duration = .seconds(45)
    /// A connection must send its Hello within this time.
    public var handshakeTimeout: Duration = .seconds(5)
    /// What the handshake and idle deadlines wait on. Apart from ``clock``: a demonstration
    /// moves that one by hours (`--clock-control`) without closing every connection. Tests
    /// pass a clock they move, so that only moving it reaches a deadline.
    public var deadlineClock: any WallClock = .system
    /// The relays the primary waits on for companions away from home (protocol section 25),
    /// in the order companions should try them: it keeps one connection to each, and tells
    /// its companions of them when they pair and at every HelloAck.
    public var relays: [RelayAddress] = []
    /// Who the primary is to its relays: an identity of its own, never the node's (a relay
    /// learns no CareSync fingerprint). `caresync primary` keeps it beside the node's
    /// identity, so that companions find the primary under the same relay id after a
    /// restart; `nil`: a new one for this run.
    public var relayIdentity: NodeIdentity?
    /// How the primary keeps its memberships: pings, answers, backoff.
    public var relayMembership = RelayMembership.Settings()
    /// Sessions through relays open or being joined at once, beyond which invitations are
    /// let go unanswered.
    public var relayedSessionLimit = 32
    /// Invitations to a session the primary takes up a minute, whatever their relay: each
    /// costs a connection and a TLS handshake.
    public var relayInvitationsPerMinute = 60
    /// Pairing attempts judged a minute, whatever their source: each costs scrypt
    /// derivations. Only a benchmark pairing a hundred companions needs more.
    public var pairingAttemptsPerMinute = 10
    public var maximumFrameBytes = Frame.defaultMaximumBytes
    /// From this time of day a watch also receives tomorrow's events.
    public var tomorrowFrom = TimeOfDay(hour: 20, minute: 0)!
    /// The wall clock: decides which day it is, and what reminders and alerts wait on for
    /// their time; tests pass a clock they move.
    public var clock: any WallClock = .system
    /// How often the primary looks at `now` for a new day besides each boundary it foresees
    /// (a clock set by hand moves the boundary); tests with a clock of their own make it short.
    public var dayCheckInterval: Duration = .seconds(600)
    /// How often the primary writes when devices were last seen (see `caresync devices`);
    /// it keeps the times in memory in between, and writes them when it stops.
    public var lastSeenInterval: Duration = .seconds(10)
    /// The directory of the primary's identity files, which standby copies keep with the
    /// store (protocol section 23): restored from one, a new primary is this one to every
    /// companion. `nil`: standby copies get the store alone.
    public var identityDirectory: String?
    /// How the primary's scheduled backups stand, told to household devices (protocol
    /// section 24); `nil` for a primary that makes none.
    public var backupHealth: BackupHealth?
    /// Where the primary logs connections, refusals and the failures it recovers from
    /// (with `peer`, `messageID` and `revision` metadata). Silent unless given.
    public var logger = Logger(label: "caresync.primary", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(identity: NodeIdentity) {
        self.identity = identity
    }

    /// The primary's node id: its certificate's fingerprint.
    public var nodeID: String { identity.fingerprint }
}

/// The version of CareSync's software, as nodes report it in their handshake.
public enum CareSyncVersion {
    public static let current = "0.1.0"
}
