/// The known name a misspelt one most likely meant, for "did you mean …?" in messages.
enum NameSuggestion {
    /// The name in `known` equal to `name` but for case, else the one fewest edits away
    /// (insertions, deletions, substitutions and swaps of neighbours), if that is close: at
    /// most a third of `name`'s length, and at least 1, at most 3 edits.
    static func closest(to name: String, among known: [String]) -> String? {
        let lowered = name.lowercased()
        if let match = known.first(where: { $0.lowercased() == lowered }) { return match }
        let limit = max(1, min(3, name.count / 3))
        return known
            .map { (name: $0, distance: distance(Array(lowered), Array($0.lowercased()))) }
            .filter { $0.distance <= limit }
            .min { $0.distance < $1.distance }?.name
    }

    /// Edit distance with swaps of neighbouring characters (optimal string alignment).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: Array(0...b.count), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    /// `did you mean "daysOfWeek"?` when a known name is close, else the list of known names.
    static func hint(for name: String, among known: [String], kind: String) -> String {
        if let suggestion = closest(to: name, among: known) { return "did you mean \"\(suggestion)\"?" }
        return "known \(kind)s are " + known.joined(separator: ", ")
    }
}
