import CarePlan
import Foundation
import RelayProtocol

/// Every message a node sends, made from domain values: SyncNode builds no envelope by
/// hand. Reading a message back is each domain type's `init(wire:)`, beside its type.
extension Caresync_V1_Envelope {
    /// A companion's first message on a connection: who it is, the plan it last followed,
    /// the features it offers and, for `context-delta`, the context it holds.
    public static func hello(
        nodeID: String, role: DeviceRole, softwareVersion: String, planID: String?, displayName: String,
        features: [String] = [], holding held: ApplicationContext? = nil, alertsAfter: Int = 0
    ) -> Self {
        .with {
            $0.hello = .with {
                $0.protocolVersions = ProtocolVersion.supported
                $0.nodeID = nodeID
                $0.role = role.wire
                $0.softwareVersion = softwareVersion
                $0.planID = planID ?? ""
                $0.displayName = displayName
                $0.features = features
                if let held { $0.heldContext = held.held.wire }
                $0.alertsAfter = UInt64(max(0, alertsAfter))
            }
        }
    }

    /// The primary's acceptance of a Hello, with the version chosen and the connection's limits.
    public static func helloAck(
        version: UInt32, nodeID: String, softwareVersion: String, planID: String, displayName: String,
        features: [String] = [], pingInterval: Duration, idleTimeout: Duration, maximumFrameBytes: Int, relays: [RelayRoute] = []
    ) -> Self {
        .with {
            $0.helloAck = .with {
                $0.protocolVersion = version
                $0.features = features
                $0.nodeID = nodeID
                $0.role = .primary
                $0.softwareVersion = softwareVersion
                $0.planID = planID
                $0.displayName = displayName
                $0.pingIntervalMs = UInt32(clamping: pingInterval.wholeMilliseconds)
                $0.idleTimeoutMs = UInt32(clamping: idleTimeout.wholeMilliseconds)
                $0.maxFrameBytes = UInt32(clamping: maximumFrameBytes)
                $0.relays = relays.map(\.wire)
            }
        }
    }

    /// A companion's request to pair, proving it holds the code.
    public static func pairRequest(role: DeviceRole, displayName: String, softwareVersion: String, proof: Data) -> Self {
        .with {
            $0.pairRequest = .with {
                $0.protocolVersions = ProtocolVersion.supported
                $0.role = role.wire
                $0.displayName = displayName
                $0.softwareVersion = softwareVersion
                $0.proof = proof
            }
        }
    }

    /// A completion, from the companion's outbox.
    public static func completion(_ completion: Caresync_V1_Completion) -> Self {
        .with { $0.completion = completion }
    }

    /// The primary's judgement of completion `messageID`: the revision that recorded it, or
    /// the rejection and what a person reads about it; the event's state either way, or
    /// `nil` (UNSPECIFIED) when it was refused before the store was consulted.
    public static func completionReply(
        to messageID: String, revision: Int?, superseded: Bool, state: EventState?, rejection: Rejection?, detail: String?
    ) -> Self {
        .with {
            $0.completionReply = .with {
                $0.messageID = messageID
                $0.status = rejection == nil ? .accepted : .rejected
                $0.revision = UInt64(max(0, revision ?? 0))
                $0.superseded = superseded
                $0.currentState = state?.wire ?? .unspecified
                $0.reason = rejection?.wire ?? .unspecified
                $0.detail = detail ?? ""
            }
        }
    }

    /// Today's (and the following days') plan for a companion.
    public static func context(_ context: ApplicationContext) -> Self {
        .with { $0.applicationContext = context.wire }
    }

    /// What changed since the context a companion holds.
    public static func contextDelta(_ delta: ContextDelta) -> Self {
        .with { $0.contextDelta = delta.wire }
    }

    /// Asks for a whole context next.
    public static var contextRequest: Self {
        .with { $0.contextRequest = .init() }
    }

    /// A reminder for a watch.
    public static func reminder(_ notice: ReminderNotice) -> Self {
        .with { $0.reminder = notice.wire }
    }

    /// Dose alerts for a household device, newest first (protocol section 22).
    public static func doseAlerts(_ alerts: [DoseAlert]) -> Self {
        .with { $0.doseAlerts = .with { $0.alerts = alerts.map(\.wire) } }
    }

    /// Asks the primary to remind again `minutes` (at least one) from now.
    public static func snooze(_ key: EventKey, minutes: Int) -> Self {
        .with {
            $0.snoozeReminder = .with {
                $0.activityID = key.activityID
                $0.day = key.day.description
                $0.occurrence = UInt32(key.occurrence)
                $0.minutes = UInt32(clamping: max(1, minutes))
            }
        }
    }

    /// Asks for a page of the change log after `revision`.
    public static func historyRequest(after revision: Int, limit: Int, requestID: String) -> Self {
        .with {
            $0.historyRequest = .with {
                $0.afterRevision = UInt64(max(0, revision))
                $0.limit = UInt32(clamping: limit)
                $0.requestID = requestID
            }
        }
    }

    /// A page of the change log, answering request `requestID`.
    public static func history(_ page: HistoryPage, answering requestID: String) -> Self {
        .with { $0.historyPage = page.wire(answering: requestID) }
    }

    public static func ping(nonce: UInt64) -> Self {
        .with { $0.ping = .with { $0.nonce = nonce } }
    }

    public static func pong(nonce: UInt64) -> Self {
        .with { $0.pong = .with { $0.nonce = nonce } }
    }

    /// The last message before a close, and why.
    public static func goodbye(_ reason: Caresync_V1_GoodbyeReason, detail: String = "") -> Self {
        .with { $0.goodbye = .with { $0.reason = reason; $0.detail = detail } }
    }
}

extension Caresync_V1_Completion {
    /// A completion of the event `key`, as a companion records it.
    public init(
        messageID: String, key: EventKey, state: EventState, values: [OutcomeValue], deviceTime: Date,
        clock: HybridTimestamp, reason: String?
    ) {
        self = .with {
            $0.messageID = messageID
            $0.activityID = key.activityID
            $0.day = key.day.description
            $0.occurrence = UInt32(key.occurrence)
            $0.state = state.wire
            $0.values = values.map(\.wire)
            $0.deviceTimeMs = deviceTime.millisecondsSince1970
            $0.clock = clock.wire
            $0.reason = reason ?? ""
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, as the wire carries intervals.
    var wholeMilliseconds: Int64 {
        let (milliseconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? .max : milliseconds + components.attoseconds / 1_000_000_000_000_000
    }
}
