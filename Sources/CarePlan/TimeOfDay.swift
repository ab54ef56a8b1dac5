import Foundation

/// A wall-clock time in the plan's time zone, to the minute.
public struct TimeOfDay: Sendable, Hashable, Comparable {
    /// Minutes since midnight, 0..<1440.
    public let minutes: Int

    public init?(hour: Int, minute: Int) {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        minutes = hour * 60 + minute
    }

    /// Parses `HH:MM` (24-hour clock): two ASCII digits each, nothing else (no sign, which
    /// `Int(_:)` would take, so that `+8:00` is refused, not read as `08:00`).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]) else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public var hour: Int { minutes / 60 }
    public var minute: Int { minutes % 60 }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minutes < rhs.minutes }
}

extension TimeOfDay: CustomStringConvertible {
    /// `HH:MM`.
    public var description: String { hour.zeroPadded(2) + ":" + minute.zeroPadded(2) }
}

extension TimeOfDay: StringCoded {
    init?(codedString: String) { self.init(codedString) }
    var codedString: String { description }
    static let expectedForm = "a time as HH:MM"
}
