/// What a paired companion is, which decides what it may do.
public enum DeviceRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reads the context, records outcomes, receives reminders.
    case watch
    /// Reads the context and records outcomes.
    case widget
    /// Reads the context and the history; records only if granted at pairing.
    case household
}
