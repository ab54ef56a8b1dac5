import ArgumentParser

/// What the command line says when it cannot parse the words it was given: one line, as
/// `caresync --help` promises, naming the command whose help tells more.
enum UsageErrors {
    /// The line for `error`, a parse error of `arguments` (the store options moved to the
    /// end, ``StoreOptions/movingLeadingOptions(_:)``). A word where a command of a group was
    /// expected is named as an unknown command, with the nearest one, rather than as the
    /// option or argument the group then failed on.
    static func line(for error: any Error, arguments: [String]) -> String {
        let (path, unknown) = commandPath(of: arguments)
        let help = "see `\(path.joined(separator: " ")) --help`"
        if let unknown { return "\(unknown); \(help)" }
        let message = CareSync.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\(message); \(help)"
    }

    /// The commands `arguments` name from the root, and what is wrong with the word after
    /// them when it names no command of a group.
    static func commandPath(of arguments: [String]) -> (path: [String], unknown: String?) {
        var command: any ParsableCommand.Type = CareSync.self
        var path = [CareSync._commandName]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-"), word != "help" else { break }
            if let next = subcommands.first(where: { $0._commandName == word }) {
                command = next
                path.append(word)
                continue
            }
            let names = subcommands.map { $0._commandName }
            let nearest = names.min { distance(word, $0) < distance(word, $1) }.flatMap {
                distance(word, $0) <= max(1, word.count / 3) ? $0 : nil
            }
            // A group with a default command may take `word` as that command's argument.
            if command.configuration.defaultSubcommand != nil && nearest == nil { break }
            let unknown = "unknown command '\(word)' of `\(path.joined(separator: " "))`"
            return (path, unknown + (nearest.map { "; did you mean '\($0)'?" } ?? ""))
        }
        return (path, nil)
    }

    /// The edits (insert, delete, substitute, swap two neighbours) that make `a` into `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
