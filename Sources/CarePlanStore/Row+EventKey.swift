import CarePlan
import GRDB

extension Row {
    /// The event named by a row's `activity_id`, `day` and `occurrence` columns.
    var eventKey: EventKey {
        EventKey(activityID: self["activity_id"], day: CalendarDay(daysSinceEpoch: self["day"]), occurrence: self["occurrence"])
    }

    /// The wall-clock time in a row's `time` column (minutes since midnight).
    var timeOfDay: TimeOfDay {
        TimeOfDay(hour: (self["time"] as Int) / 60, minute: (self["time"] as Int) % 60)!
    }
}
