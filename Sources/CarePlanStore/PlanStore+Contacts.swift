import CarePlan
import GRDB

extension PlanStore {
    /// The plan's contacts in plan order; removed ones are kept but not listed.
    public func contacts() async throws(CarePlanStoreError) -> [Contact] {
        try await read { db in
            try db.values(String.self, "SELECT definition FROM contact WHERE removed = 0 ORDER BY position, id")
                .map { try StoredJSON.decode(Contact.self, from: $0) }
        }
    }

    /// Adds or replaces a contact. One saved here (origin `.api`) is not removed by a plan
    /// document that lacks it; a plan document that lists it makes it the plan's.
    @discardableResult
    @_spi(CareCore) public func saveContact(_ contact: Contact, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await write { db in try saveContact(db, contact, position: nil, origin: .api, device: device) }
    }

    /// Adds or replaces contacts in one transaction, as ``saveContact(_:device:)`` does each;
    /// for each, whether it changed.
    @_spi(CareCore) public func saveContacts(_ contacts: [Contact], device: String) async throws(CarePlanStoreError) -> [Bool] {
        try await write { db in
            try contacts.map { try saveContact(db, $0, position: nil, origin: .api, device: device) != nil }
        }
    }

    /// The contact with this identifier, unless removed.
    public func contact(_ id: String) async throws(CarePlanStoreError) -> Contact? {
        try await read { db in
            try db.value(String.self, "SELECT definition FROM contact WHERE id = ? AND removed = 0", arguments: [id])
                .map { try StoredJSON.decode(Contact.self, from: $0) }
        }
    }

    /// Removes a contact from the list; its past definitions stay in the history.
    @discardableResult
    @_spi(CareCore) public func removeContact(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await write { db in try removeContact(db, id, device: device) }
    }

    /// Saves `contact` unless it is stored unchanged; returns the change if one was made.
    func saveContact(_ db: Database, _ contact: Contact, position: Int?, origin: ActivityOrigin, device: String) throws -> StoreChange? {
        let definition = try StoredJSON.encode(contact)
        let current = try db.row("SELECT * FROM contact WHERE id = ?", arguments: [contact.identifier])
        let position = try position ?? current?["position"]
            ?? db.value(Int.self, "SELECT COALESCE(MAX(position) + 1, 0) FROM contact")!
        // A plan's contact stays the plan's when saved one by one; one a plan lists becomes the plan's.
        let origin = current?["origin"] == ActivityOrigin.plan.rawValue && current?["removed"] == false ? .plan : origin
        if let current, current["definition"] == definition, current["removed"] == false {
            try db.run("UPDATE contact SET position = ?, origin = ? WHERE id = ?", arguments: [position, origin.rawValue, contact.identifier])
            return nil
        }
        let change = try StoreChange(kind: .contactSaved, contactID: contact.identifier, device: device, committedAt: now())
            .append(to: db)
        try db.run("""
                INSERT INTO contact (id, position, definition, removed, revision, origin) VALUES (?, ?, ?, 0, ?, ?)
                ON CONFLICT (id) DO UPDATE SET position = excluded.position, definition = excluded.definition,
                    removed = 0, revision = excluded.revision, origin = excluded.origin
                """,
            arguments: [contact.identifier, position, definition, change.revision, origin.rawValue])
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
