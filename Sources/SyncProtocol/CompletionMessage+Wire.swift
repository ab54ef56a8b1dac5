import CarePlan
import Foundation

/// A completion as it travels (protocol sections 7 and 11), seen through domain values: a companion
/// makes it once from the event and its outcome, keeps it in its outbox (in memory, and in the
/// outbox's row as ``serializedBytes()``) and sends it as it is; a primary reads one from a
/// frame and asks it for its event and outcome.
///
/// It holds the message itself, so that neither side pays for a second form on the hot path
/// of every completion: wrapping a decoded message, or unwrapping one to send, copies nothing.
public struct CompletionMessage: Sendable {
    /// The message as it goes on the wire.
    var wire: Caresync_V1_Completion

    /// The completion read from (or to be sent as) `wire`; nothing is checked until asked.
    public init(wire: Caresync_V1_Completion) {
        self.wire = wire
    }

    /// A completion of the event `key`, as a companion records it.
    public init(
        messageID: String, key: EventKey, state: EventState, values: [OutcomeValue], deviceTime: Date,
        clock: HybridTimestamp, reason: String?
    ) {
        wire = Caresync_V1_Completion(
            messageID: messageID, key: key, state: state, values: values, deviceTime: deviceTime, clock: clock, reason: reason)
    }

    /// The completion kept in an outbox row (the stored format: the serialized message).
    public init(serializedBytes bytes: Data) throws {
        wire = try Caresync_V1_Completion(serializedBytes: bytes)
    }

    /// The completion as an outbox row keeps it.
    public func serializedBytes() throws -> Data {
        try wire.serializedBytes()
    }

    /// The id the primary's answer names; empty in a message that lacks one.
    public var messageID: String { wire.messageID }

    /// The activity the completion is about, even when its day cannot be read.
    public var activityID: String { wire.activityID }

    /// The event this completion is about.
    ///
    /// - Throws: `MALFORMED_FRAME` for a day that is not `YYYY-MM-DD`.
    public func eventKey() throws(ProtocolError) -> EventKey {
        try wire.eventKey()
    }

    /// The outcome it records, made by `device`.
    ///
    /// - Throws: `MALFORMED_FRAME` for a state, value or instant that cannot be read.
    public func outcome(device: String) throws(ProtocolError) -> Outcome {
        try wire.outcome(device: device)
    }

    /// The same completion, marked as sent from the outbox with no caller waiting for its
    /// answer (WatchConnectivity's `transferUserInfo`), or not.
    public func queued(_ queued: Bool) -> Self {
        var message = self
        message.wire.queued = queued
        return message
    }
}

extension Caresync_V1_Envelope {
    /// A completion, from the companion's outbox.
    public static func completion(_ completion: CompletionMessage) -> Self {
        .with { $0.completion = completion.wire }
    }
}
