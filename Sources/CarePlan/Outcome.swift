import Foundation

/// What was recorded for an event: its state, an optional result, who recorded it and when.
public struct Outcome: Sendable, Hashable, Codable {
    public var state: EventState
    /// The result: empty for a plain "done", one value for a scale, two for a blood pressure.
    public var values: [OutcomeValue]
    /// When the device recorded it (the device's clock).
    public var recordedAt: Date
    /// The node that recorded it.
    public var device: String
    /// Why an event was not completed, if given.
    public var reason: String?
    public var userInfo: [String: String]
    /// Orders changes to the same event; the store assigns it to local changes.
    public var clock: HybridTimestamp?

    public init(
        state: EventState, values: [OutcomeValue] = [], recordedAt: Date, device: String,
        reason: String? = nil, userInfo: [String: String] = [:], clock: HybridTimestamp? = nil
    ) {
        self.state = state
        self.values = values
        self.recordedAt = recordedAt
        self.device = device
        self.reason = reason
        self.userInfo = userInfo
        self.clock = clock
    }

    enum CodingKeys: String, CodingKey { case state, values, recordedAt, device, reason, userInfo, clock }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(EventState.self, forKey: .state)
        values = try c.decodeIfPresent([OutcomeValue].self, forKey: .values) ?? []
        recordedAt = try ISO8601.decode(c, forKey: .recordedAt)
        device = try c.decode(String.self, forKey: .device)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        userInfo = try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
        clock = try c.decodeIfPresent(HybridTimestamp.self, forKey: .clock)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        if !values.isEmpty { try c.encode(values, forKey: .values) }
        try c.encode(ISO8601.string(from: recordedAt), forKey: .recordedAt)
        try c.encode(device, forKey: .device)
        try c.encodeIfPresent(reason, forKey: .reason)
        if !userInfo.isEmpty { try c.encode(userInfo, forKey: .userInfo) }
        try c.encodeIfPresent(clock, forKey: .clock)
    }
}
