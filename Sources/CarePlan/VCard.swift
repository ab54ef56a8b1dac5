import Foundation

/// Contacts as vCards (RFC 6350, version 4.0), since people keep contacts in address books.
///
/// Written: `FN`, `N`, `TITLE`, `TEL` (`VALUE=uri`, `tel:`; the messaging number with
/// `TYPE=text`), `EMAIL`, `UID` (the contact's identifier), `CATEGORIES` (`care team` or
/// `personal`) and `X-CARESYNC-RELATION`. Read: the same from 4.0 and 3.0 cards, whatever else
/// a card holds being ignored; `ROLE` stands for the relation when there is no
/// `X-CARESYNC-RELATION`, and a card without `UID` gets an identifier made from its name.
public enum VCard {
    /// One card per contact, lines ending in CRLF and folded at 75 octets.
    public static func write(_ contacts: [Contact]) -> String {
        contacts.map { contact in
            var lines = ["BEGIN:VCARD", "VERSION:4.0", "UID:\(escape(contact.identifier))", "FN:\(escape(contact.fullName))",
                         "N:\(escape(contact.familyName ?? ""));\(escape(contact.givenName));;;"]
            lines.append("CATEGORIES:\(contact.kind == .careTeam ? "care team" : "personal")")
            if let title = contact.title { lines.append("TITLE:\(escape(title))") }
            if let relation = contact.relation { lines.append("X-CARESYNC-RELATION:\(escape(relation))") }
            if let phone = contact.phone { lines.append("TEL;TYPE=voice;VALUE=uri:\(telURI(phone))") }
            if let messaging = contact.messagingNumber { lines.append("TEL;TYPE=text,cell;VALUE=uri:\(telURI(messaging))") }
            if let email = contact.email { lines.append("EMAIL:\(escape(email))") }
            lines.append("END:VCARD")
            return lines.map(fold).joined()
        }.joined()
    }

    /// The contacts of every card in `text`; `kind` for cards that do not say (no `CATEGORIES`
    /// of ours).
    public static func read(_ text: String, kind: ContactKind = .personal) throws(VCardError) -> [Contact] {
        var contacts: [Contact] = []
        var card: [(name: String, parameters: [String: String], value: String)]?
        var started = 0
        for (number, line) in unfold(text) {
            guard !line.isEmpty else { continue }
            let property = try parse(line, number: number)
            switch (property.name, card) {
            case ("BEGIN", nil) where property.value.uppercased() == "VCARD":
                card = []
                started = number
            case ("END", let properties?) where property.value.uppercased() == "VCARD":
                contacts.append(try contact(properties, kind: kind, line: started))
                card = nil
            case (_, nil):
                throw .malformed(line: number, "\(property.name) outside BEGIN:VCARD … END:VCARD")
            case ("BEGIN", _?):
                throw .malformed(line: number, "BEGIN:VCARD inside a card that has not ended")
            default:
                card?.append(property)
            }
        }
        if card != nil { throw .malformed(line: started, "a card without END:VCARD") }
        return contacts
    }

    private static func contact(
        _ properties: [(name: String, parameters: [String: String], value: String)], kind: ContactKind, line: Int
    ) throws(VCardError) -> Contact {
        func first(_ name: String) -> String? { properties.first { $0.name == name }.map { unescape($0.value) } }
        let names = properties.first { $0.name == "N" }.map { split($0.value, by: ";").map(unescape) } ?? []
        let formatted = first("FN")
        var given = names.count > 1 ? names[1] : ""
        var family = names.first.flatMap { $0.isEmpty ? nil : $0 }
        if given.isEmpty, let formatted {
            // Only a formatted name: its last word is taken for the family name.
            let words = formatted.split(separator: " ").map(String.init)
            given = words.count > 1 ? words.dropLast().joined(separator: " ") : formatted
            family = family ?? (words.count > 1 ? words.last : nil)
        }
        guard !given.isEmpty else { throw .malformed(line: line, "a card without a name (FN or N)") }
        let phones = properties.filter { $0.name == "TEL" }
        func isText(_ phone: (name: String, parameters: [String: String], value: String)) -> Bool {
            (phone.parameters["TYPE"] ?? "").lowercased().split(separator: ",").contains { $0 == "text" || $0 == "cell" }
        }
        let voice = phones.first { !isText($0) } ?? (phones.count > 1 ? phones.first : nil)
        let messaging = phones.first { isText($0) && !($0.value == voice?.value) }
        let categories = first("CATEGORIES")?.lowercased()
        let identifier = first("UID").map(identifier(fromUID:)) ?? identifier(fromName: [given, family].compactMap { $0 }.joined(separator: " "))
        do {
            return try Contact(
                identifier: identifier,
                kind: categories?.contains("care team") == true ? .careTeam : categories?.contains("personal") == true ? .personal : kind,
                givenName: given, familyName: family, title: first("TITLE"), relation: first("X-CARESYNC-RELATION") ?? first("ROLE"),
                phone: voice.map { phoneNumber($0.value) }, messagingNumber: messaging.map { phoneNumber($0.value) },
                email: first("EMAIL"))
        } catch {
            throw .invalidContact(line: line, error)
        }
    }

    /// `name;param=value:value` (the name and parameter names upper-cased, a group prefix dropped).
    private static func parse(_ line: String, number: Int) throws(VCardError) -> (name: String, parameters: [String: String], value: String) {
        guard let colon = colonOutsideQuotes(line) else { throw .malformed(line: number, "no \":\" in \"\(line.prefix(40))\"") }
        let head = split(String(line[..<colon]), by: ";")
        var parameters: [String: String] = [:]
        for parameter in head.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            // vCard 3.0 writes bare types: TEL;CELL:…
            let (key, value) = pair.count == 2 ? (pair[0].uppercased(), pair[1]) : ("TYPE", pair[0])
            parameters[key] = [parameters[key], value.trimmingCharacters(in: ["\""])].compactMap { $0 }.joined(separator: ",")
        }
        let name = head[0].split(separator: ".").last.map { $0.uppercased() } ?? ""
        return (name, parameters, String(line[line.index(after: colon)...]))
    }

    private static func colonOutsideQuotes(_ line: String) -> String.Index? {
        var quoted = false
        for index in line.indices {
            if line[index] == "\"" { quoted.toggle() }
            if line[index] == ":", !quoted { return index }
        }
        return nil
    }

    /// Lines with their numbers, folded lines (CRLF or LF, then a space or tab) joined.
    private static func unfold(_ text: String) -> [(Int, String)] {
        var lines: [(Int, String)] = []
        // "\r\n" is one Character in Swift: split on any line break.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = String(raw)
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1].1 += line.dropFirst()
            } else {
                lines.append((index + 1, line))
            }
        }
        return lines
    }

    /// Splits on `separator` where it is not escaped with a backslash.
    private static func split(_ text: String, by separator: Character) -> [String] {
        var parts = [""]
        var escaped = false
        for character in text {
            if character == separator, !escaped {
                parts.append("")
            } else {
                parts[parts.count - 1].append(character)
            }
            escaped = character == "\\" && !escaped
        }
        return parts
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,")
            .replacingOccurrences(of: ";", with: "\\;").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func unescape(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `tel:+43-1-555-0100` for `+43 1 555 0100`.
    private static func telURI(_ number: String) -> String {
        "tel:" + number.split(whereSeparator: \.isWhitespace).joined(separator: "-")
    }

    /// The number of a `tel:` URI or a 3.0 text value, spaced as it came.
    private static func phoneNumber(_ value: String) -> String {
        let number = value.lowercased().hasPrefix("tel:") ? String(value.dropFirst(4)) : unescape(value)
        return number.replacingOccurrences(of: "-", with: " ")
    }

    /// A UID as a contact identifier: `urn:uuid:` dropped, characters an identifier may not
    /// hold replaced.
    private static func identifier(fromUID uid: String) -> String {
        let bare = uid.lowercased().hasPrefix("urn:uuid:") ? String(uid.dropFirst(9)) : uid
        return String(String(bare.map { $0.isWhitespace || $0.isNewline ? "-" : $0 }).prefix(200))
    }

    /// `maria-ruiz` for "Maria Ruiz": the same on every import of the same card.
    private static func identifier(fromName name: String) -> String {
        let words = name.lowercased().split { !$0.isLetter && !$0.isNumber }
        return words.isEmpty ? "contact" : String(words.joined(separator: "-").prefix(200))
    }

    /// A content line folded after 75 octets (continuations begin with a space), CRLF-ended.
    private static func fold(_ line: String) -> String {
        var folded = ""
        var octets = 0
        for character in line {
            let size = String(character).utf8.count
            if octets + size > 75 {
                folded += "\r\n "
                octets = 1
            }
            folded.append(character)
            octets += size
        }
        return folded + "\r\n"
    }
}

/// Why a vCard file cannot be read; `line` is where its card begins or the fault is.
public enum VCardError: Error, Hashable, Sendable, CustomStringConvertible {
    case malformed(line: Int, String)
    case invalidContact(line: Int, ContactError)

    public var description: String {
        switch self {
        case .malformed(let line, let why): "line \(line): \(why)"
        case .invalidContact(let line, let error): "the card at line \(line): \(error)"
        }
    }
}
