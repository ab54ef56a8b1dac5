import Foundation

/// The words of one language, read from its data file in the package's resources
/// (`Languages/CODE.json`): dosage instructions, insights and the care report all take their
/// words from it; whatever the file lacks comes from English. Plural forms are chosen by the
/// file's CLDR plural rules, and a form named `=N` wins for exactly N ("twice").
public struct Language: Sendable {
    /// The language's code, such as `de`: its file's name.
    public let code: String
    private let table: LanguageEntry
    private let english: LanguageEntry
    private let rules: [(category: String, rule: PluralRule)]

    /// The language `code`, from its data file.
    public init(_ code: String) throws(LanguageError) {
        let english = try Self.table("en")
        let table = code == "en" ? english : try Self.table(code)
        var rules: [(String, PluralRule)] = []
        for (category, text) in (table["plural"].flatMap(\.object) ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let text = text.string, let rule = PluralRule(text) else {
                throw .malformed(code, "the plural rule for \"\(category)\" does not parse")
            }
            rules.append((category, rule))
        }
        self.code = code
        self.table = table
        self.english = english
        self.rules = rules
    }

    /// The codes of every language with a data file, sorted.
    public static var available: [String] {
        guard let directory = Bundle.module.resourceURL?.appendingPathComponent("Languages"),
              let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    private static func table(_ code: String) throws(LanguageError) -> LanguageEntry {
        guard code.allSatisfy({ $0.isLetter || $0 == "-" }),
              let url = Bundle.module.url(forResource: code, withExtension: "json", subdirectory: "Languages"),
              let data = try? Data(contentsOf: url) else {
            throw .unknown(code, available: available)
        }
        guard let table = try? JSONDecoder().decode(LanguageEntry.self, from: data), table.object != nil else {
            throw .malformed(code, "not a JSON object")
        }
        return table
    }

    /// The language's phrase for `key` (English when it has none), such as "as needed".
    public func phrase(_ key: String) -> String {
        entry([key])?.string ?? key
    }

    /// The entry at `path` (`["every", "h"]`): this language's, else English's.
    public func entry(_ path: [String]) -> LanguageEntry? {
        ownEntry(path) ?? path.reduce(Optional(english)) { $0?[$1] }
    }

    /// The entry at `path` in this language's own file, never English's: for words that
    /// must agree with the language's other words (`half a` with `Tablette` would not).
    public func ownEntry(_ path: [String]) -> LanguageEntry? {
        path.reduce(Optional(table)) { $0?[$1] }
    }

    /// The plural category of a number written canonically (`1`, `0.5`).
    public func category(_ number: String) -> String {
        rules.first { $0.rule.matches(number) }?.category ?? "other"
    }

    /// The phrase at `path` for `count`, its placeholders filled: `{count}` is the number as
    /// this language writes it. A plain string entry needs no plural forms.
    public func phrase(_ path: [String], count: Decimal? = nil, _ values: [String: String] = [:]) -> String {
        var values = values
        var template = entry(path)
        if let count {
            let canonical = "\(count)"
            values["count"] = number(count)
            if let forms = template?.object {
                template = forms["=" + canonical] ?? forms[category(canonical)] ?? forms["other"]
            }
        }
        return Self.fill(template?.string ?? path.joined(separator: "."), values)
    }

    /// `template` with each `{name}` replaced by `values[name]`, in one pass from the start: a
    /// value is never read as a template (a reason holding `{time}` stays as written), and a
    /// placeholder with no value stays as it is.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        guard !values.isEmpty else { return template }
        var text = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            text += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"), let value = values[String(rest[rest.index(after: open)..<close])] else {
                text.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            text += value
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }

    /// `a, b and c` in this language.
    public func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: phrase(["listSeparator"])) + phrase(["listAnd"]) + items.last!
    }

    /// A name as part of a sentence: in a language that does not capitalize nouns,
    /// capitalized words are lower-cased ("Pain" → "pain", "COPD" stays).
    public func runningText(_ text: String) -> String {
        if case .flag(true) = entry(["capitalizedNouns"]) { return text }
        return text.split(separator: " ", omittingEmptySubsequences: false).map { word in
            let letters = Array(word)
            guard letters.count > 1, letters[0].isUppercase, letters.dropFirst().allSatisfy({ !$0.isUppercase }) else {
                return String(word)
            }
            return word.lowercased()
        }.joined(separator: " ")
    }

    /// `number` with this language's decimal separator.
    public func number(_ number: Decimal) -> String {
        "\(number)".replacingOccurrences(of: ".", with: entry(["decimalSeparator"])?.string ?? ".")
    }
}

/// Why a language cannot be used.
public enum LanguageError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknown(String, available: [String])
    case malformed(String, String)

    public var description: String {
        switch self {
        case .unknown(let code, let available):
            "no language \"\(code)\": available are \(available.joined(separator: ", "))"
        case .malformed(let code, let why): "the language file \(code).json is malformed: \(why)"
        }
    }
}
