import Foundation
import Testing

/// What the libraries may not do, checked in their sources: write to standard output or
/// error by hand (their output goes through a Logger, or LineOutput in the programs).
struct LibraryHygieneTests {
    /// The library modules: every folder of Sources/ but the executables', and the
    /// simulators' shared support.
    static let libraries: [URL] = {
        let sources = CareSyncCommand.repository.appendingPathComponent("Sources")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return names.filter { !["caresync", "caresync-bench", "CDNSSD"].contains($0) }.sorted().map(sources.appendingPathComponent)
            + [CareSyncCommand.repository.appendingPathComponent("Simulators/Support")]
    }()

    /// Lines of the Swift files below `folder` that match `pattern`, as `file:line: text`.
    static func lines(in folder: URL, matching pattern: String) throws -> [String] {
        let expression = try Regex(pattern)
        var found: [String] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" && !$0.path.contains("/Generated/") } ?? []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(expression) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    @Test func theLibrariesAreFound() {
        #expect(Self.libraries.count >= 12)
        #expect(Self.libraries.contains { $0.lastPathComponent == "SyncNode" })
    }

    @Test func noLibraryPrintsOrWritesStandardErrorByHand() throws {
        for library in Self.libraries {
            let writes = try Self.lines(
                in: library, matching: #"\bprint\(|FileHandle\.standard(Error|Output)|\bfputs\(|\bputs\("#)
            #expect(writes.isEmpty, "\(library.lastPathComponent) writes by hand:\n\(writes.joined(separator: "\n"))")
        }
    }

    /// The check itself finds what it looks for (a file that prints, in a scratch folder).
    @Test func theCheckSeesAPrint() throws {
        let scratch = Scratch()
        let folder = URL(fileURLWithPath: scratch.path("Lib"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "func f() {\n    print(\"hello\")\n}\n".write(to: folder.appendingPathComponent("F.swift"), atomically: true, encoding: .utf8)
        #expect(try Self.lines(in: folder, matching: #"\bprint\("#) == [#"F.swift:2: print("hello")"#])
    }
}
