import CarePlan

/// A watch's "snooze" (protocol section 18), as the primary reads it: the event to remind of
/// again, and after how many minutes. Nothing is refused here: whether the device may snooze
/// is the primary's to judge first, and only then whether the request is well formed.
public struct SnoozeRequest: Sendable {
    /// The event; `nil` when the message's day is not `YYYY-MM-DD`.
    public var key: EventKey?
    /// The minutes as sent (a well-formed request asks for 1 to 1440).
    public var minutes: Int

    public init(wire: Caresync_V1_SnoozeReminder) {
        key = CalendarDay(wire.day).map { EventKey(activityID: wire.activityID, day: $0, occurrence: Int(wire.occurrence)) }
        minutes = Int(wire.minutes)
    }
}
