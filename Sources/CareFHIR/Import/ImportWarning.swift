/// Something in an order that could not be scheduled exactly: reported, never dropped silently.
public struct ImportWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// An interval that does not fit a day (every 5 hours, every 36 hours) or a calendar
        /// unit of varying length (a month): scheduled as the nearest exact pattern.
        case inexact
        /// A range (2 to 3 times, every 4 to 6 hours, 5 to 10 days): one end is scheduled.
        case range
        /// Events listed for days before the import: not scheduled.
        case pastEvents
        /// Events that do not repeat regularly after the first ones: not scheduled.
        case irregularEvents
        /// A dosage without timing: its doses can be recorded, none is due.
        case unscheduled
        /// An order whose status is neither active nor finished (draft, on-hold, unknown).
        case notImported
        /// An order that leaves out what its schedule needs, such as a frequency without a
        /// period: nothing is invented in its place.
        case incomplete
        /// An order read as a pharmacist reads it where it leaves a choice: twice a day
        /// before meals is before breakfast and dinner; three times a week is Monday,
        /// Wednesday and Friday.
        case interpreted
        /// A dosage whose bounds end before the day it would start (an order written after
        /// its course ended, recording the past): nothing is scheduled from it, and an order
        /// with nothing else is imported as ended.
        case historical
    }

    public var kind: Kind
    /// Where in the input, such as `Bundle.entry[0].resource.dosageInstruction[1].timing`.
    public var path: String
    public var message: String

    public init(_ kind: Kind, at path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
