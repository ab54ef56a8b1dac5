import CarePlan
import Foundation
import GRDB

/// A contact as the record keeps it, removed or not.
@_spi(CareCore) public struct StoredContact: Sendable {
    public var contact: Contact
    /// Its place in the list.
    public var position: Int
    /// Whether a plan document listed it (`.plan`) or it was saved one by one (`.api`).
    public var origin: ActivityOrigin
    public var removed: Bool
}

/// The plan's contacts, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordContacts: RecordPart {
    let record: RecordTransaction
}

extension RecordContacts {
    /// The contact `id`, if the record keeps it (removed ones too).
    public func kept(_ id: String) throws -> StoredContact? {
        try db.row("SELECT definition, position, origin, removed FROM contact WHERE id = ?", arguments: [id]).map { row in
            StoredContact(
                contact: try StoredJSON.decode(Contact.self, from: row["definition"]), position: row["position"],
                origin: ActivityOrigin(rawValue: row["origin"]) ?? .api, removed: row["removed"])
        }
    }

    /// The place after the last contact's.
    public func nextPosition() throws -> Int {
        try db.value(Int.self, "SELECT COALESCE(MAX(position) + 1, 0) FROM contact")!
    }

    /// The listed contacts a plan document gave.
    public func idsFromDocument() throws -> [String] {
        try db.values(String.self, "SELECT id FROM contact WHERE removed = 0 AND origin = ?", arguments: [ActivityOrigin.plan.rawValue])
    }

    /// Puts the kept contact `id` at `position`, as `origin`'s, logging nothing.
    public func place(_ id: String, at position: Int, origin: ActivityOrigin) throws {
        try db.run("UPDATE contact SET position = ?, origin = ? WHERE id = ?", arguments: [position, origin.rawValue, id])
    }

    /// Keeps `contact` (new, or replacing the one with its id) at `position` as `origin`'s, listed.
    public func keep(_ contact: Contact, position: Int, origin: ActivityOrigin, device: String) throws -> StoreChange {
        let change = try StoreChange(kind: .contactSaved, contactID: contact.identifier, device: device, committedAt: now)
            .append(to: db)
        try db.run("""
                INSERT INTO contact (id, position, definition, removed, revision, origin) VALUES (?, ?, ?, 0, ?, ?)
                ON CONFLICT (id) DO UPDATE SET position = excluded.position, definition = excluded.definition,
                    removed = 0, revision = excluded.revision, origin = excluded.origin
                """,
            arguments: [contact.identifier, position, try StoredJSON.encode(contact), change.revision, origin.rawValue])
        return change
    }

    /// Takes the kept contact `id` off the list; its definitions stay in the history.
    public func remove(_ id: String, device: String) throws -> StoreChange {
        let change = try StoreChange(kind: .contactRemoved, contactID: id, device: device, committedAt: now).append(to: db)
        try db.run("UPDATE contact SET removed = 1, revision = ? WHERE id = ?", arguments: [change.revision, id])
        return change
    }
}
