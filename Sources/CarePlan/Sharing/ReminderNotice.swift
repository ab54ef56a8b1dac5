import Foundation

/// A reminder as a watch receives it: the event, its title and due time, and the text to show.
public struct ReminderNotice: Sendable, Hashable {
    public var reminder: Reminder
    /// The activity's text (or its instructions); empty when it has neither.
    public var text: String

    public init(reminder: Reminder, text: String) {
        self.reminder = reminder
        self.text = text
    }
}
