/// What loading a plan document changed.
public struct PlanLoadReport: Sendable, Hashable, Codable {
    public var added: [String] = []
    public var updated: [String] = []
    public var ended: [String] = []
    public var unchanged: [String] = []
    public var contactsSaved: [String] = []
    public var contactsRemoved: [String] = []
    /// The store's revision after loading.
    public var revision: Int = 0

    /// A report of nothing changed.
    public init() {}

    /// Whether the load changed any activity or contact.
    public var changedAnything: Bool {
        !(added.isEmpty && updated.isEmpty && ended.isEmpty && contactsSaved.isEmpty && contactsRemoved.isEmpty)
    }
}

