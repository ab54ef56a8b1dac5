import CarePlan
import GRDB

extension CarePlanStore {
    /// The plan's contacts in plan order; removed ones are kept but not listed.
    public func contacts() async throws(CarePlanStoreError) -> [Contact] {
        try await read { db in
            try db.values(String.self, "SELECT definition FROM contact WHERE removed = 0 ORDER BY position, id")
                .map { try StoredJSON.decode(Contact.self, from: $0) }
        }
    }

    /// Adds or replaces a contact.
    @discardableResult
    public func saveContact(_ contact: Contact, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await write { db in try saveContact(db, contact, position: nil, device: device) }
    }

    /// Removes a contact from the list; its past definitions stay in the history.
    @discardableResult
    public func removeContact(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await write { db in try removeContact(db, id, device: device) }
    }

    /// Saves `contact` unless it is stored unchanged; returns the change if one was made.
    func saveContact(_ db: Database, _ contact: Contact, position: Int?, device: String) throws -> StoreChange? {
        let definition = try StoredJSON.encode(contact)
        let current = try db.row("SELECT * FROM contact WHERE id = ?", arguments: [contact.identifier])
        let position = try position ?? current?["position"]
            ?? db.value(Int.self, "SELECT COALESCE(MAX(position) + 1, 0) FROM contact")!
        if let current, current["definition"] == definition, current["removed"] == false {
            try db.run("UPDATE contact SET position = ? WHERE id = ?", arguments: [position, contact.identifier])
            return nil
        }
        let change = try StoreChange(kind: .contactSaved, contactID: contact.identifier, device: device, committedAt: now())
            .append(to: db)
        try db.run("""
                INSERT INTO contact (id, position, definition, removed, revision) VALUES (?, ?, ?, 0, ?)
                ON CONFLICT (id) DO UPDATE SET position = excluded.position, definition = excluded.definition,
                    removed = 0, revision = excluded.revision
                """,
            arguments: [contact.identifier, position, definition, change.revision])
        return change
    }

    func removeContact(_ db: Database, _ id: String, device: String) throws -> StoreChange? {
        guard try db.value(Bool.self, "SELECT removed = 0 FROM contact WHERE id = ?", arguments: [id]) == true else {
            return nil
        }
        let change = try StoreChange(kind: .contactRemoved, contactID: id, device: device, committedAt: now()).append(to: db)
        try db.run("UPDATE contact SET removed = 1, revision = ? WHERE id = ?", arguments: [change.revision, id])
        return change
    }
}
