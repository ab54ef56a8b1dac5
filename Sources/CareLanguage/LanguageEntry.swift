import Foundation

/// One entry of a language file: a phrase, a table of entries (plural forms, a unit's words),
/// or a flag, number or list that a language sets.
public indirect enum LanguageEntry: Sendable, Hashable, Decodable {
    case text(String)
    case table([String: LanguageEntry])
    case list([LanguageEntry])
    case flag(Bool)
    case number(Decimal)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let flag = try? c.decode(Bool.self) {
            self = .flag(flag)
        } else if let text = try? c.decode(String.self) {
            self = .text(text)
        } else if let number = try? c.decode(Decimal.self) {
            self = .number(number)
        } else if let list = try? c.decode([LanguageEntry].self) {
            self = .list(list)
        } else {
            self = .table(try c.decode([String: LanguageEntry].self))
        }
    }

    public subscript(key: String) -> LanguageEntry? {
        if case .table(let table) = self { table[key] } else { nil }
    }

    public var string: String? {
        if case .text(let text) = self { text } else { nil }
    }

    public var object: [String: LanguageEntry]? {
        if case .table(let table) = self { table } else { nil }
    }
}
