/// A breach of the protocol, with the code from the catalogue (Protocol/README.md) that
/// the peer receives in an Error message.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Caresync_V1_ErrorCode
    public var message: String
    /// Whether the connection closes after the error is sent.
    public var isFatal: Bool

    public init(_ code: Caresync_V1_ErrorCode, _ message: String, fatal: Bool = true) {
        self.code = code
        self.message = message
        self.isFatal = fatal
    }

    public var description: String { "\(code): \(message)" }

    /// The same error, fatal or not.
    public func withFatal(_ fatal: Bool) -> ProtocolError {
        var error = self
        error.isFatal = fatal
        return error
    }

    /// The Error message that tells the peer.
    public func envelope(inReplyTo messageID: String = "") -> Caresync_V1_Envelope {
        .with {
            $0.error = .with {
                $0.code = code
                $0.message = message
                $0.inReplyTo = messageID
                $0.fatal = isFatal
            }
        }
    }

    public static func frameTooLarge(announced: Int, limit: Int) -> ProtocolError {
        ProtocolError(.payloadTooLarge, "frame of \(announced) bytes announced; the limit is \(limit) bytes")
    }

    /// `MALFORMED_FRAME` with `detail` as the whole message: the code already says what
    /// kind of failure it is.
    public static func malformed(_ detail: String) -> ProtocolError {
        ProtocolError(.malformedFrame, detail)
    }

    /// `PROTOCOL_VIOLATION`, "unexpected X PHASE", X naming the envelope's body as the
    /// schema does (``Caresync_V1_Envelope/bodyName``).
    public static func unexpected(_ envelope: Caresync_V1_Envelope, _ phase: String) -> ProtocolError {
        ProtocolError(.protocolViolation, "unexpected \(envelope.bodyName) \(phase)")
    }
}

extension Caresync_V1_Envelope {
    /// The body's field name in the schema (`hello`, `pair_request`, …), or `empty message`
    /// for an Envelope without one (or with a body this version does not know).
    public var bodyName: String {
        switch body {
        case .hello: "hello"
        case .helloAck: "hello_ack"
        case .applicationContext: "application_context"
        case .completion: "completion"
        case .completionReply: "completion_reply"
        case .reminder: "reminder"
        case .ping: "ping"
        case .pong: "pong"
        case .goodbye: "goodbye"
        case .error: "error"
        case .snoozeReminder: "snooze_reminder"
        case .pairRequest: "pair_request"
        case .pairAccept: "pair_accept"
        case .historyRequest: "history_request"
        case .historyPage: "history_page"
        case .contextDelta: "context_delta"
        case .contextRequest: "context_request"
        case .reportChunk: "report_chunk"
        case .reportReceived: "report_received"
        case .measurementBatch: "measurement_batch"
        case .measurementReceipt: "measurement_receipt"
        case .doseAlerts: "dose_alerts"
        case .standbyHeld: "standby_held"
        case .standbyPages: "standby_pages"
        case .standbyApplied: "standby_applied"
        case .backupStatus: "backup_status"
        case nil: "empty message"
        }
    }
}

extension Caresync_V1_Role: CustomStringConvertible {
    /// The role as messages name it: `watch`, `widget`, `household`, `primary`,
    /// `unspecified`, or `role N` for a number this version does not know.
    public var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .primary: "primary"
        case .watch: "watch"
        case .widget: "widget"
        case .household: "household"
        case .UNRECOGNIZED(let n): "role \(n)"
        }
    }
}

extension Caresync_V1_ErrorCode: CustomStringConvertible {
    /// The catalogue name, e.g. `PAYLOAD_TOO_LARGE`.
    public var description: String {
        switch self {
        case .unspecified: "UNSPECIFIED"
        case .notReachable: "NOT_REACHABLE"
        case .payloadTooLarge: "PAYLOAD_TOO_LARGE"
        case .replyTimedOut: "REPLY_TIMED_OUT"
        case .notPermitted: "NOT_PERMITTED"
        case .malformedFrame: "MALFORMED_FRAME"
        case .protocolViolation: "PROTOCOL_VIOLATION"
        case .versionMismatch: "VERSION_MISMATCH"
        case .planMismatch: "PLAN_MISMATCH"
        case .handshakeTimeout: "HANDSHAKE_TIMEOUT"
        case .idleTimeout: "IDLE_TIMEOUT"
        case .unknownMessage: "UNKNOWN_MESSAGE"
        case .internal: "INTERNAL"
        case .notPaired: "NOT_PAIRED"
        case .pairingFailed: "PAIRING_FAILED"
        case .UNRECOGNIZED(let n): "UNRECOGNIZED(\(n))"
        }
    }
}
