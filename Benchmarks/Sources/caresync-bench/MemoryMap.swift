import Foundation

/// What a process's resident memory is made of, from /proc/PID/smaps: its own executable's
/// pages, the shared libraries', anonymous memory (malloc's arenas, thread stacks, SQLite's
/// page cache), the main thread's stack, and the rest.
struct MemoryMap {
    /// Resident bytes per part, largest first.
    var parts: [(name: String, bytes: Int)]
    /// Of those, the pages the process wrote and holds alone (the rest are mapped from files
    /// or shared: the system can drop and share them).
    var privateDirty: Int

    /// Reads process `pid`'s map; `nil` if it cannot be read.
    static func read(_ pid: String) -> MemoryMap? {
        // Read to its end: /proc files claim a size of 0, and the whole map is many pages.
        guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile() else { return nil }
        let smaps = String(decoding: data, as: UTF8.self)
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
        var totals: [String: Int] = [:]
        var privateDirty = 0
        var part = "other"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5, first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                part = Self.part(path: fields.count > 5 ? fields[5...].joined(separator: " ") : "", executable: executable)
            } else if fields.first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                totals[part, default: 0] += kilobytes * 1024
            } else if fields.first == "Private_Dirty:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                privateDirty += kilobytes * 1024
            }
        }
        return MemoryMap(parts: totals.sorted { $0.value > $1.value }.map { ($0.key, $0.value) }, privateDirty: privateDirty)
    }

    private static func part(path: String, executable: String) -> String {
        if path == executable { return "executable" }
        if path.contains(".so") { return "shared libraries" }
        if path.isEmpty || path == "[heap]" { return "anonymous" }
        if path.hasPrefix("[stack") { return "main stack" }
        return "other"
    }

    /// One line: each part and its size.
    var summary: String {
        parts.map { "\($0.name) \(bytes($0.bytes))" }.joined(separator: ", ") + "; written and its own: \(bytes(privateDirty))"
    }
}
