import CarePlan
@_spi(CareCore) import CarePlanStore

extension PlanRules {
    /// Rules 8 and 9: saves `contact` at `position` (its own, or last, when `nil`) as
    /// `origin`'s; `nil` when it was listed as it is.
    static func save(
        _ record: RecordTransaction, _ contact: Contact, position: Int? = nil, origin: ActivityOrigin = .api, device: String
    ) throws -> StoreChange? {
        let kept = try record.contacts.kept(contact.identifier)
        let listed = kept.map { !$0.removed } ?? false
        let position = try position ?? kept?.position ?? record.contacts.nextPosition()
        let origin = listed && kept?.origin == .plan ? .plan : origin
        if listed, kept?.contact == contact {
            try record.contacts.place(contact.identifier, at: position, origin: origin)
            return nil
        }
        return try record.contacts.keep(contact, position: position, origin: origin, device: device)
    }

    /// Rule 11: takes the contact `id` off the list; `nil` when it was not listed.
    static func remove(_ record: RecordTransaction, _ id: String, device: String) throws -> StoreChange? {
        guard try record.contacts.kept(id)?.removed == false else { return nil }
        return try record.contacts.remove(id, device: device)
    }

    /// Rules 8 to 10: a plan document's `contacts`, in its order, replace the plan's.
    static func replaceContacts(
        _ record: RecordTransaction, with contacts: [Contact], in report: inout PlanLoadReport, device: String
    ) throws {
        for (position, contact) in contacts.enumerated()
        where try save(record, contact, position: position, origin: .plan, device: device) != nil {
            report.contactsSaved.append(contact.identifier)
        }
        let listed = Set(contacts.map(\.identifier))
        for id in try record.contacts.idsFromDocument() where !listed.contains(id) {
            _ = try record.contacts.remove(id, device: device)
            report.contactsRemoved.append(id)
        }
    }
}
