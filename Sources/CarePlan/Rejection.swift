/// Why a completion was refused for good: one reason from the store's judgement, through
/// the primary's reply, to the companion that sent it.
public enum Rejection: String, Sendable, Hashable, Codable, CaseIterable {
    /// The plan has no activity with this id.
    case unknownActivity
    /// The activity has no such occurrence on that day.
    case noSuchOccurrence
    /// No version of the activity schedules the event on its day.
    case outsidePlanVersion
    /// The values do not fit the activity's result, or a state it may not return to.
    case invalidResult
    /// The device may not record (a household device not granted it at pairing).
    case notPermitted
    /// The event's day is after today in the plan's time zone: a dose is not taken in advance.
    case futureDay
}
