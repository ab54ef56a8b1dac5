import CarePlan
import Foundation
import GRDB

/// One entry of the store's change log.
public struct StoreChange: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case planConfigured
        case activityAdded
        case activityUpdated
        case activityEnded
        case outcomeRecorded
        /// A completion kept in the history that lost to a later change of the same event.
        case outcomeSuperseded
        case contactSaved
        case contactRemoved
        /// A companion was paired (``StoreChange/pairedDevice`` names it).
        case devicePaired
        /// A paired companion was revoked: the primary cuts it off.
        case deviceRevoked
        /// The care report was sent to someone (``StoreChange/share`` says to whom and of which days).
        case reportShared
    }

    /// Monotonic across the store's life, shared by every process using the file.
    public var revision: Int
    public var kind: Kind
    public var activityID: String?
    /// The event whose outcome changed (``Kind/outcomeRecorded``).
    public var event: EventKey?
    /// The outcome as recorded; state `initial` means the event was reset.
    public var outcome: Outcome?
    /// The activity version added, or the version governing the event.
    public var version: Int?
    /// The day an activity change takes effect.
    public var effectiveFrom: CalendarDay?
    public var contactID: String?
    /// The message id of a completion from another node.
    public var messageID: String?
    /// The companion paired or revoked (its fingerprint).
    public var pairedDevice: String?
    /// The report shared (``Kind/reportShared``).
    public var share: ReportShare?
    /// The node that made the change.
    public var device: String
    /// When the store committed it.
    public var committedAt: Date

    enum CodingKeys: String, CodingKey {
        case revision, kind, activityID = "activity", event, outcome, version, effectiveFrom
        case contactID = "contact", messageID, pairedDevice, share, device, committedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        revision = try c.decode(Int.self, forKey: .revision)
        kind = try c.decode(Kind.self, forKey: .kind)
        activityID = try c.decodeIfPresent(String.self, forKey: .activityID)
        event = try c.decodeIfPresent(EventKey.self, forKey: .event)
        outcome = try c.decodeIfPresent(Outcome.self, forKey: .outcome)
        version = try c.decodeIfPresent(Int.self, forKey: .version)
        effectiveFrom = try c.decodeIfPresent(CalendarDay.self, forKey: .effectiveFrom)
        contactID = try c.decodeIfPresent(String.self, forKey: .contactID)
        messageID = try c.decodeIfPresent(String.self, forKey: .messageID)
        pairedDevice = try c.decodeIfPresent(String.self, forKey: .pairedDevice)
        share = try c.decodeIfPresent(ReportShare.self, forKey: .share)
        device = try c.decode(String.self, forKey: .device)
        guard let date = ISO8601.date(from: try c.decode(String.self, forKey: .committedAt)) else {
            throw DecodingError.dataCorruptedError(
                forKey: .committedAt, in: c, debugDescription: "expected an ISO 8601 timestamp")
        }
        committedAt = date
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(revision, forKey: .revision)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(activityID, forKey: .activityID)
        try c.encodeIfPresent(event, forKey: .event)
        try c.encodeIfPresent(outcome, forKey: .outcome)
        try c.encodeIfPresent(version, forKey: .version)
        try c.encodeIfPresent(effectiveFrom, forKey: .effectiveFrom)
        try c.encodeIfPresent(contactID, forKey: .contactID)
        try c.encodeIfPresent(messageID, forKey: .messageID)
        try c.encodeIfPresent(pairedDevice, forKey: .pairedDevice)
        try c.encodeIfPresent(share, forKey: .share)
        try c.encode(device, forKey: .device)
        try c.encode(ISO8601.string(from: committedAt), forKey: .committedAt)
    }

    init(
        revision: Int = 0, kind: Kind, activityID: String? = nil, event: EventKey? = nil,
        outcome: Outcome? = nil, version: Int? = nil, effectiveFrom: CalendarDay? = nil,
        contactID: String? = nil, messageID: String? = nil, pairedDevice: String? = nil, share: ReportShare? = nil, device: String,
        committedAt: Date
    ) {
        self.revision = revision
        self.kind = kind
        self.activityID = activityID ?? event?.activityID
        self.event = event
        self.outcome = outcome
        self.version = version
        self.effectiveFrom = effectiveFrom
        self.contactID = contactID
        self.messageID = messageID
        self.pairedDevice = pairedDevice
        self.share = share
        // A share's recipient is the change's contact or device, as for other changes.
        switch share?.recipient {
        case .contact(let id): self.contactID = id
        case .device(let id): self.pairedDevice = id
        case nil: break
        }
        self.device = device
        self.committedAt = committedAt
    }
}

extension StoreChange {
    /// The columns ``init(row:)`` reads, in its order.
    static let columns = "revision, kind, activity_id, day, occurrence, version, effective_from, contact_id, device, committed_at, "
        + OutcomeColumns.names + ", message_id, paired_device, shared_to, range_from, range_through"

    private static let insert: String = {
        let names = columns.split(separator: ",").dropFirst()
        return "INSERT INTO change (\(names.joined(separator: ","))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
    }()

    /// Appends this change to the log and returns it with its new revision.
    func append(to db: Database) throws -> StoreChange {
        try db.direct(Self.insert) { statement in
            statement.bind(kind.rawValue)
            statement.bind(activityID)
            statement.bind(event?.day.daysSinceEpoch)
            statement.bind(event?.occurrence)
            statement.bind(version)
            statement.bind(effectiveFrom?.daysSinceEpoch)
            statement.bind(contactID)
            statement.bind(outcome?.device ?? device)
            statement.bind(committedAt.timeIntervalSince1970)
            try OutcomeColumns.bind(outcome, to: &statement)
            statement.bind(messageID)
            statement.bind(pairedDevice)
            statement.bind(share?.address)
            statement.bind(share?.days.lowerBound.daysSinceEpoch)
            statement.bind(share?.days.upperBound.daysSinceEpoch)
            try statement.execute()
        }
        var appended = self
        appended.revision = Int(db.lastInsertedRowID)
        return appended
    }

    /// Decodes a row of ``columns``.
    init(row: Row) throws {
        let kindName: String = row[1]
        guard let kind = Kind(rawValue: kindName) else {
            throw CarePlanStoreError.database("unknown change kind \"\(kindName)\" in the change log")
        }
        let activityID: String? = row[2]
        let day = (row[3] as Int?).map(CalendarDay.init(daysSinceEpoch:))
        let occurrence: Int? = row[4]
        let device: String = row[8]
        self.init(
            revision: row[0], kind: kind, activityID: activityID,
            event: day.flatMap { day in
                occurrence.map { EventKey(activityID: activityID ?? "", day: day, occurrence: $0) }
            },
            outcome: try OutcomeColumns.decode(row, at: 10, device: device),
            version: row[5],
            effectiveFrom: (row[6] as Int?).map(CalendarDay.init(daysSinceEpoch:)),
            contactID: row[7], messageID: row[17], pairedDevice: row[18], share: Self.share(row, kind: kind), device: device,
            committedAt: Date(timeIntervalSince1970: row[9]))
    }

    /// The share a `reportShared` row records: its recipient in `contact_id` or `paired_device`.
    private static func share(_ row: Row, kind: Kind) -> ReportShare? {
        guard kind == .reportShared, let address: String = row[19], let from: Int = row[20], let through: Int = row[21],
              from <= through else { return nil }
        let recipient: ReportShare.Recipient? = (row[18] as String?).map { .device($0) } ?? (row[7] as String?).map { .contact($0) }
        return recipient.map {
            ReportShare(recipient: $0, address: address, days: CalendarDay(daysSinceEpoch: from)...CalendarDay(daysSinceEpoch: through))
        }
    }
}
