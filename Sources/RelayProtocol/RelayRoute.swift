/// One way to a device through a relay: the relay (its id pinned) and the id under which
/// the device waits there.
public struct RelayRoute: Sendable, Hashable, Codable, CustomStringConvertible {
    public var relay: RelayAddress
    /// The device's relay id at that relay (for a CareSync primary, the id of its relay
    /// identity, not its node id).
    public var device: RelayDeviceID

    public init(relay: RelayAddress, device: RelayDeviceID) {
        self.relay = relay
        self.device = device
    }

    public var description: String { "\(relay.host):\(relay.port)" }

    private enum CodingKeys: String, CodingKey { case relay, device }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        relay = try RelayAddress(try container.decode(String.self, forKey: .relay))
        device = try RelayDeviceID(try container.decode(String.self, forKey: .device))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(relay.description, forKey: .relay)
        try container.encode(device.description, forKey: .device)
    }
}
