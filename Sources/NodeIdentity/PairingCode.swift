import Crypto

/// A short one-time code that a person carries from the primary's screen to a companion.
///
/// Eight characters of Crockford's base32 (40 bits), shown as `ABCD-EFGH`. Reading it
/// back forgives case, dashes and spaces, and the look-alikes O (0), I and L (1).
public struct PairingCode: Sendable, Hashable, CustomStringConvertible {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let length = 8

    /// The eight characters, without the dash.
    public let characters: String

    /// A new random code.
    public static func random() -> PairingCode {
        var generator = SystemRandomNumberGenerator()
        return PairingCode(characters: String((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
    }

    /// A code as typed by a person, or `nil` if it cannot be one.
    public init?(_ text: String) {
        var normalized = ""
        for character in text.uppercased() where character != "-" && character != " " {
            switch character {
            case "O": normalized.append("0")
            case "I", "L": normalized.append("1")
            case _ where Self.alphabet.contains(character): normalized.append(character)
            default: return nil
            }
        }
        guard normalized.count == Self.length else { return nil }
        characters = normalized
    }

    private init(characters: String) {
        self.characters = characters
    }

    /// `ABCD-EFGH`.
    public var description: String {
        "\(characters.prefix(4))-\(characters.suffix(4))"
    }
}
