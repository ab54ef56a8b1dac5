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

    /// The contact with this identifier, unless removed.
    public func contact(_ id: String) async throws(CarePlanStoreError) -> Contact? {
        try await read { db in
            try db.value(String.self, "SELECT definition FROM contact WHERE id = ? AND removed = 0", arguments: [id])
                .map { try StoredJSON.decode(Contact.self, from: $0) }
        }
    }
}
