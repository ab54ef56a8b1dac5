import CarePlan

/// Which activities to list. Filters apply before `limit` and `offset`, so every page
/// but the last is full.
public struct ActivityQuery: Sendable, Hashable {
    public var kind: ActivityKind?
    public var group: String?
    public var tag: String?
    /// Whether ended activities are listed too.
    public var includeEnded: Bool
    public var limit: Int?
    public var offset: Int

    public init(
        kind: ActivityKind? = nil, group: String? = nil, tag: String? = nil,
        includeEnded: Bool = false, limit: Int? = nil, offset: Int = 0
    ) {
        self.kind = kind
        self.group = group
        self.tag = tag
        self.includeEnded = includeEnded
        self.limit = limit
        self.offset = offset
    }
}

/// Where an activity came from; loading a plan document ends only activities it made.
public enum ActivityOrigin: String, Sendable, Hashable, Codable {
    case plan
    case api
}
