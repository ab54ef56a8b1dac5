/// Someone on the patient's care team or in their personal circle.
public struct Contact: Sendable, Hashable, Identifiable {
    public var identifier: String
    public var kind: ContactKind
    public var givenName: String
    public var familyName: String?
    /// A job or relationship title, such as "Family Practice Doctor".
    public var title: String?
    /// How the contact relates to the patient, such as "Mother" or "Physician".
    public var relation: String?
    public var phone: String?
    public var messagingNumber: String?
    public var email: String?
    /// Initials shown in place of a photo; derived from the name unless given.
    public var monogram: String

    public var id: String { identifier }

    public init(
        identifier: String, kind: ContactKind, givenName: String, familyName: String? = nil,
        title: String? = nil, relation: String? = nil, phone: String? = nil,
        messagingNumber: String? = nil, email: String? = nil, monogram: String? = nil
    ) throws(ContactError) {
        guard Activity.isValidIdentifier(identifier) else { throw .invalidIdentifier(identifier) }
        guard !givenName.isEmpty else { throw .emptyName }
        if let email, !email.contains("@") { throw .invalidEmail(email) }
        self.identifier = identifier
        self.kind = kind
        self.givenName = givenName
        self.familyName = familyName
        self.title = title
        self.relation = relation
        self.phone = phone
        self.messagingNumber = messagingNumber
        self.email = email
        self.monogram = monogram ?? [givenName, familyName ?? ""]
            .compactMap(\.first).map { String($0).uppercased() }.joined()
    }

    /// Given and family name.
    public var fullName: String {
        [givenName, familyName].compactMap { $0 }.joined(separator: " ")
    }
}

public enum ContactKind: String, Sendable, Hashable, Codable, CaseIterable, NamedCases {
    case careTeam
    case personal
}

public enum ContactError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidIdentifier(String)
    case emptyName
    case invalidEmail(String)

    public var description: String {
        switch self {
        case .invalidIdentifier(let id): "invalid contact identifier \"\(id)\""
        case .emptyName: "a contact needs a given name"
        case .invalidEmail(let email): "invalid email address \"\(email)\""
        }
    }
}

extension Contact: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, kind, givenName, familyName, title, relation, phone, messagingNumber, email, monogram
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        do {
            try self.init(
                identifier: try c.decode(String.self, forKey: .id),
                kind: try c.decode(ContactKind.self, forKey: .kind),
                givenName: try c.decode(String.self, forKey: .givenName),
                familyName: try c.decodeIfPresent(String.self, forKey: .familyName),
                title: try c.decodeIfPresent(String.self, forKey: .title),
                relation: try c.decodeIfPresent(String.self, forKey: .relation),
                phone: try c.decodeIfPresent(String.self, forKey: .phone),
                messagingNumber: try c.decodeIfPresent(String.self, forKey: .messagingNumber),
                email: try c.decodeIfPresent(String.self, forKey: .email),
                monogram: try c.decodeIfPresent(String.self, forKey: .monogram))
        } catch let error as ContactError {
            let key: CodingKeys = switch error {
            case .invalidIdentifier: .id
            case .emptyName: .givenName
            case .invalidEmail: .email
            }
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(givenName, forKey: .givenName)
        try c.encodeIfPresent(familyName, forKey: .familyName)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(relation, forKey: .relation)
        try c.encodeIfPresent(phone, forKey: .phone)
        try c.encodeIfPresent(messagingNumber, forKey: .messagingNumber)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encode(monogram, forKey: .monogram)
    }
}
