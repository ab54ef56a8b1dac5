import CarePlan

/// A care report sent to someone, as the history keeps it: to whom, where, and which days.
public struct ReportShare: Sendable, Hashable, Codable {
    /// Who received it.
    public enum Recipient: Sendable, Hashable {
        /// A contact of the plan (its identifier), by email.
        case contact(String)
        /// A paired household device (its fingerprint), over the sync protocol.
        case device(String)
    }

    public var recipient: Recipient
    /// Where it went as it was sent: the email address, or the device's name.
    public var address: String
    /// The days the report covers.
    public var days: ClosedRange<CalendarDay>

    public init(recipient: Recipient, address: String, days: ClosedRange<CalendarDay>) {
        self.recipient = recipient
        self.address = address
        self.days = days
    }

    enum CodingKeys: String, CodingKey {
        case contact, device, address, from, through
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let device = try c.decodeIfPresent(String.self, forKey: .device) {
            recipient = .device(device)
        } else {
            recipient = .contact(try c.decode(String.self, forKey: .contact))
        }
        address = try c.decode(String.self, forKey: .address)
        let (from, through) = (try c.decode(CalendarDay.self, forKey: .from), try c.decode(CalendarDay.self, forKey: .through))
        guard from <= through else {
            throw DecodingError.dataCorruptedError(forKey: .through, in: c, debugDescription: "the range ends before it begins")
        }
        days = from...through
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch recipient {
        case .contact(let id): try c.encode(id, forKey: .contact)
        case .device(let id): try c.encode(id, forKey: .device)
        }
        try c.encode(address, forKey: .address)
        try c.encode(days.lowerBound, forKey: .from)
        try c.encode(days.upperBound, forKey: .through)
    }
}

/// A report on its way to a household device: kept in the store until the device says it
/// has it, so that a device that is away gets it when it next connects.
public struct ReportDelivery: Sendable, Hashable {
    /// The revision of the `reportShared` change that recorded it; names it on the wire.
    public var revision: Int
    /// The device's fingerprint.
    public var device: String
    /// The file name it is saved under, such as `care-report-2026-11-16.pdf`.
    public var fileName: String
    /// `application/pdf` or `application/xhtml+xml`.
    public var mediaType: String
    public var content: [UInt8]
    public var days: ClosedRange<CalendarDay>

    public init(revision: Int = 0, device: String, fileName: String, mediaType: String, content: [UInt8], days: ClosedRange<CalendarDay>) {
        self.revision = revision
        self.device = device
        self.fileName = fileName
        self.mediaType = mediaType
        self.content = content
        self.days = days
    }
}
