import CarePlan
import Foundation

extension ReminderNotice {
    /// - Throws: `MALFORMED_FRAME` for a day, time or instant that cannot be read.
    public init(wire: Caresync_V1_Reminder) throws(ProtocolError) {
        guard let day = CalendarDay(wire.day) else { throw .malformed("reminder day \"\(wire.day)\" is not YYYY-MM-DD") }
        guard let time = TimeOfDay(wire.timeOfDay) else { throw .malformed("reminder time \"\(wire.timeOfDay)\" is not HH:MM") }
        self.init(
            reminder: Reminder(
                key: EventKey(activityID: wire.activityID, day: day, occurrence: Int(wire.occurrence)), title: wire.title,
                time: time, dueAt: try Date(wireMilliseconds: wire.dueAtMs, of: "reminder due time")),
            text: wire.text)
    }

    public var wire: Caresync_V1_Reminder {
        .with {
            $0.reminderID = reminder.key.description
            $0.activityID = reminder.key.activityID
            $0.day = reminder.key.day.description
            $0.occurrence = UInt32(reminder.key.occurrence)
            $0.title = reminder.title
            $0.timeOfDay = reminder.time.description
            $0.dueAtMs = reminder.dueAt.millisecondsSince1970
            $0.text = text
        }
    }
}
