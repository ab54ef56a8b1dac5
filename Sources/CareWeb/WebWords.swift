import CareLanguage
import CarePlan
import Foundation

/// The app's words in one language: its phrases under `web` in the language's data file,
/// with English for whatever the file lacks.
struct WebWords: Sendable {
    let language: Language

    var code: String { language.code }

    /// The phrase at `web.path…`, its `{placeholders}` filled from `values`.
    subscript(_ path: String..., values values: [String: String] = [:]) -> String {
        language.phrase(["web"] + path, values)
    }

    /// The phrase at `web.path…` for `count` (its plural form), placeholders filled.
    func counted(_ path: String..., count: Int, _ values: [String: String] = [:]) -> String {
        language.phrase(["web"] + path, count: Decimal(count), values)
    }

    /// The weekday's name (`Tuesday`), or its abbreviation (`Tue`, `Di`) when `short`.
    func weekday(_ day: CalendarDay, short: Bool = false) -> String {
        language.phrase(short ? ["insights", "weekdaysShort", day.weekday.name] : ["weekdays", day.weekday.name])
    }

    /// A moment in `zone` as the language writes it (`24 November 2026 at 09:00`,
    /// `24. November 2026 um 09:00`).
    func moment(_ date: Date, in zone: TimeZone) -> String {
        language.phrase(["web", "moment"], [
            "date": self.date(CalendarDay.containing(date, in: zone)), "time": TimeOfDay.containing(date, in: zone).description,
        ])
    }

    /// The date as the language writes it (`24 November 2026`, `24. November 2026`).
    func date(_ day: CalendarDay) -> String {
        language.phrase(["web", "longDate"], [
            "day": "\(day.day)", "month": language.phrase(["web", "months", "\(day.month)"]), "year": "\(day.year)",
        ])
    }
}

/// The languages the app speaks, loaded once.
enum WebLanguages {
    static let english = WebWords(language: try! Language("en"))
    static let german = WebWords(language: try! Language("de"))
    static let all = [english, german]

    /// The language named `code`, if the app speaks it.
    static func named(_ code: String) -> WebWords? {
        all.first { $0.code == code }
    }

    /// The first language of an `Accept-Language` header the app speaks, else English.
    static func preferred(by header: String?) -> WebWords {
        let ranked = (header ?? "").split(separator: ",").compactMap { part -> (String, Double)? in
            let pieces = part.split(separator: ";")
            guard let tag = pieces.first?.trimmingCharacters(in: .whitespaces).lowercased(), !tag.isEmpty else { return nil }
            let quality = pieces.dropFirst().compactMap { piece -> Double? in
                let text = piece.trimmingCharacters(in: .whitespaces)
                return text.hasPrefix("q=") ? Double(text.dropFirst(2)) : nil
            }.first ?? 1
            return (String(tag.prefix { $0 != "-" }), quality)
        }
        // Highest quality first; among equals, the order the browser gave.
        let ordered = ranked.enumerated().filter { $0.element.1 > 0 }.sorted {
            ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset)
        }
        return ordered.lazy.compactMap { named($0.element.0) }.first ?? english
    }
}
