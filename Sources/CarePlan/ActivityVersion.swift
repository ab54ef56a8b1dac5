/// One version of an activity and the days it governs.
///
/// Editing an activity adds a version effective from a given day; the versions before it
/// keep governing the days before, with their schedules and outcomes.
public struct ActivityVersion: Sendable, Hashable, Codable {
    public var activity: Activity
    /// 1 for the first version, counting up with each edit.
    public var version: Int
    /// The first day this version governs.
    public var effectiveFrom: CalendarDay
    /// The first day this version no longer governs, if a later edit or the end of the
    /// activity has closed it.
    public var effectiveUntil: CalendarDay?

    public init(activity: Activity, version: Int, effectiveFrom: CalendarDay, effectiveUntil: CalendarDay? = nil) {
        self.activity = activity
        self.version = version
        self.effectiveFrom = effectiveFrom
        self.effectiveUntil = effectiveUntil
    }

    /// Whether this version governs `day`.
    public func governs(_ day: CalendarDay) -> Bool {
        day >= effectiveFrom && effectiveUntil.map { day < $0 } ?? true
    }

    /// The number of occurrences this version schedules on `day`.
    public func occurrenceCount(on day: CalendarDay) -> Int {
        governs(day) ? activity.schedule.occurrenceCount(on: day) : 0
    }
}
