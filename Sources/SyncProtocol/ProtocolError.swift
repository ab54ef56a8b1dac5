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

    public static func malformed(_ detail: String) -> ProtocolError {
        ProtocolError(.malformedFrame, "malformed frame: \(detail)")
    }

    public static func unexpected(_ what: String, during phase: String) -> ProtocolError {
        ProtocolError(.protocolViolation, "unexpected \(what) \(phase)")
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
