import CarePlan
import Foundation

/// One message of the insights, as CareKit's alert and tip items: what it says, and the
/// numbers it rests on.
public struct InsightMessage: Sendable, Hashable, Encodable {
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// Something in the record the care team would want to know about.
        case alert
        /// An assessment's values on days an intervention was done in full against the others.
        case comparison
        /// A message from the care team.
        case tip
    }

    public var kind: Kind
    /// The rule that made it: `adherence`, `missedDaysRunning`, `range`, `comparison` or `tip`.
    public var rule: String
    /// The activities it is about, in plan order.
    public var activities: [String]
    public var title: String
    public var text: String
    /// The days it rests on.
    public var days: [CalendarDay]
    /// Every number it rests on, named.
    public var figures: [Figure]
}

/// A named number of a message, with its unit.
public struct Figure: Sendable, Hashable, Encodable {
    public var name: String
    public var value: Double
    public var unit: String?

    public init(_ name: String, _ value: Double, unit: String? = nil) {
        self.name = name
        self.value = value
        self.unit = unit
    }
}

/// How insights write numbers.
public enum InsightFormat {
    /// To one decimal, without it when whole: `2.1`, `140`.
    public static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}
