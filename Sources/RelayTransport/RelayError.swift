import RelayProtocol

/// Why a relay could not be used, as its user reads it.
public enum RelayError: Error, Equatable, CustomStringConvertible {
    /// The relay presented a certificate other than the one its address pins.
    case identityChanged(relay: RelayAddress, presented: RelayDeviceID)
    /// The relay answered with a refusal: a join already held, a session or device not found.
    case refused(relay: RelayAddress, RelayResponse)
    /// The relay is at its limits.
    case full(relay: RelayAddress)
    /// The relay sent a message that has no place here.
    case unexpected(relay: RelayAddress, RelayMessage)
    /// The relay did not answer in time.
    case timedOut(relay: RelayAddress, waitingFor: String)
    /// The connection ended before the relay answered.
    case closed(relay: RelayAddress, waitingFor: String)

    public var description: String {
        switch self {
        case .identityChanged(let relay, let presented):
            "relay identity changed: \(relay.host):\(relay.port) presented \(presented), not the pinned \(relay.id): refused"
        case .refused(let relay, let response):
            "the relay at \(relay.host):\(relay.port) refused: \(response.message) (code \(response.code))"
        case .full(let relay): "the relay at \(relay.host):\(relay.port) is full"
        case .unexpected(let relay, let message): "the relay at \(relay.host):\(relay.port) sent \(message) out of turn"
        case .timedOut(let relay, let awaited): "the relay at \(relay.host):\(relay.port) gave no \(awaited) in time"
        case .closed(let relay, let awaited): "the relay at \(relay.host):\(relay.port) closed the connection before \(awaited)"
        }
    }
}
