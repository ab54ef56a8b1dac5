/// A day of the week; raw values count from Sunday = 0, as CareKit's weekly schedules do.
public enum Weekday: Int, Sendable, Hashable, CaseIterable, Comparable {
    case sunday = 0, monday, tuesday, wednesday, thursday, friday, saturday

    /// The lowercase English name used in documents and JSON (`"monday"`).
    public var name: String {
        switch self {
        case .sunday: "sunday"
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        }
    }

    /// Accepts the full name or its first three letters, in any case.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Weekday.allCases.first(where: {
            $0.name == lowered || String($0.name.prefix(3)) == lowered
        }) else { return nil }
        self = match
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Coded by name, not by raw value (which the standard library's default would use).
extension Weekday: StringCoded {
    public init(from decoder: any Decoder) throws { self = try Self.decodeCodedString(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeCodedString(to: encoder) }
    init?(codedString: String) { self.init(name: codedString) }
    var codedString: String { name }
    static let expectedForm = "a weekday such as \"monday\""
}
