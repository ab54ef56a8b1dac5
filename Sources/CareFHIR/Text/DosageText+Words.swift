import Foundation

/// Coded concepts and amounts in words: routes and as-needed reasons from the language
/// file's tables, halves and quarters of a tablet.
extension DosageText {
    /// The code system of the language files' `routes` and `reasons` tables: SNOMED CT.
    static let tableSystem = "http://snomed.info/sct"

    /// This language's phrase for the first SNOMED CT coding of `concept` that `table` lists.
    func coded(_ concept: CodeableConcept, in table: String) -> String? {
        concept.coding?.lazy.compactMap { coding -> String? in
            guard let code = coding.code, coding.system == Self.tableSystem else { return nil }
            return self.language.entry([table, code])?.string
        }.first
    }

    /// `by mouth`, `intravenously`; an unknown route by its name (`by the intra-articular route`).
    func route(_ route: CodeableConcept?) -> String? {
        guard let route else { return nil }
        if let phrase = coded(route, in: "routes") { return phrase }
        guard var name = route.displayName.map(language.runningText) else { return nil }
        if name.hasSuffix(" route") { name.removeLast(" route".count) }
        return language.phrase(["routeOther"], ["route": name])
    }

    /// `half a tablet`, `eine halbe Tablette`: the language's words for this amount of a unit
    /// counted in pieces (one with plural forms), by the unit's grammatical gender where the
    /// language has one (`doseWords` in the language file).
    func inWords(_ value: Decimal, of quantity: Quantity) -> String? {
        guard let key = unitKey(quantity), let forms = language.entry(["units", key])?.object,
              var words = language.ownEntry(["doseWords", "\(value)"]) else { return nil }
        if let byGender = words.object {
            guard let gender = forms["gender"]?.string, let chosen = byGender[gender] else { return nil }
            words = chosen
        }
        return words.string.map {
            $0.replacingOccurrences(of: "{one}", with: language.phrase(["units", key], count: 1))
                .replacingOccurrences(of: "{other}", with: language.phrase(["units", key], count: 2))
        }
    }
}
