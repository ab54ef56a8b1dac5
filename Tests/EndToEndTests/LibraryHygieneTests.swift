import Foundation
import Testing

/// What the libraries may not do, checked in their sources: write to standard output or
/// error by hand (their output goes through a Logger, or LineOutput in the programs).
struct LibraryHygieneTests {
    /// The library modules: every folder of Sources/ but the executables', the simulators'
    /// shared support and the FHIR test server.
    static let libraries: [URL] = {
        let sources = CareSyncCommand.repository.appendingPathComponent("Sources")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return names.filter { !["caresync", "CDNSSD"].contains($0) }.sorted().map(sources.appendingPathComponent)
            + ["Simulators/Support", "Simulators/FHIRServer"].map(CareSyncCommand.repository.appendingPathComponent)
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

    /// Only the care core changes the record. The store's one writer (`RecordTransaction`,
    /// opened by `transaction` and `commitTogether`) is `@_spi(CareCore)`: the compiler refuses
    /// it to any module that does not import that SPI, and this test refuses the import to
    /// every module but the core. The benchmarks, a package of their own, may import it too:
    /// they measure the store's own write paths, below the core.
    @Test func onlyTheCareCoreWritesTheRecord() throws {
        let repository = CareSyncCommand.repository
        let store = try Self.lines(
            in: repository.appendingPathComponent("Sources/CarePlanStore"), matching: #"@_spi\(CareCore\) public (func|struct|typealias)"#)
        #expect(store.count >= 5, "the store's write API is not behind the SPI:\n\(store.joined(separator: "\n"))")
        let allowed: Set = ["CareCore", "CarePlanStore"]
        let modules = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Sources").path)
            .filter { !allowed.contains($0) }.map { "Sources/" + $0 }
            + (try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Simulators").path)).map { "Simulators/" + $0 }
        #expect(modules.count >= 25)
        for module in modules {
            let writers = try Self.lines(in: repository.appendingPathComponent(module), matching: #"@_spi\(CareCore\)"#)
            #expect(writers.isEmpty, "\(module) writes to the store around the care core:\n\(writers.joined(separator: "\n"))")
        }
    }

    /// The protocol's wire types (`Caresync_V1_…`) appear in SyncNode only at its edges, where
    /// frames are read, written and fanned out: the framing (Transport/), the primary's
    /// per-connection dispatch, the companion's session and the primary's fan-out to its
    /// connections. Everywhere else the node speaks domain types, and every mapping between the
    /// two is module SyncProtocol's. Each edge says in its doc comment that it is one.
    @Test func wireTypesStayAtSyncNodesEdges() throws {
        let folder = CareSyncCommand.repository.appendingPathComponent("Sources/SyncNode")
        let transport = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Transport").path)
        let edges = Set(transport + ["PrimaryConnection.swift", "CompanionSession.swift", "ConnectionRegistry.swift"])
        #expect(edges.count >= 6)
        let uses = try Self.lines(in: folder, matching: #"\bCaresync_V1_"#)
        #expect(uses.count >= 5, "the check finds no wire types in SyncNode at all")
        let outside = uses.filter { !edges.contains(String($0.prefix { $0 != ":" })) }
        #expect(outside.isEmpty, "wire types outside SyncNode's edges (map them in SyncProtocol):\n\(outside.joined(separator: "\n"))")
        for file in Set(uses.map { String($0.prefix { $0 != ":" }) }).intersection(edges).sorted() {
            let (url, _) = try Self.location(file + ":1:", in: folder)
            #expect(try String(contentsOf: url, encoding: .utf8).contains("edge of SyncNode"), "\(file) does not say it is an edge")
        }
    }

    /// No public function of the store writes: every write is in a function only the core may
    /// call (`@_spi(CareCore)`) or in the store's internal plumbing.
    @Test func noPublicStoreFunctionWrites() throws {
        let folder = CareSyncCommand.repository.appendingPathComponent("Sources/CarePlanStore")
        let writes = try Self.lines(in: folder, matching: #"\bawait write \{|\.write\("#)
        #expect(writes.count >= 2)
        let open = try writes.filter { line in
            let declaration = try Self.declaration(around: line, in: folder)
            return declaration.contains("public ") && !declaration.contains("@_spi(CareCore)")
        }
        #expect(open.isEmpty, "public store functions that write:\n\(open.joined(separator: "\n"))")
    }

    /// SQLite is reached synchronously only while a database is opened (which runs on a
    /// thread of its own, through `blocking`): everywhere else GRDB's access is awaited.
    @Test func databasesAreReachedSynchronouslyOnlyWhileOpening() throws {
        for library in Self.libraries {
            let access = try Self.lines(
                in: library, matching: #"\b(pool|queue|writer|reader)\.(read|write|writeWithoutTransaction|barrierWriteWithoutTransaction|unsafeRead|unsafeReentrantWrite|inDatabase)\b"#)
            let blockingAccess = try access.filter { !$0.contains("await") }.filter { line in
                try !Self.enclosingFunction(of: line, in: library).hasPrefix("open") && Self.enclosingFunction(of: line, in: library) != "migrate"
            }
            #expect(blockingAccess.isEmpty, "\(library.lastPathComponent) reaches SQLite synchronously:\n\(blockingAccess.joined(separator: "\n"))")
        }
    }

    /// The store's whole public interface is asynchronous: there is no way to call it and
    /// block a thread of the cooperative pool while SQLite works.
    @Test func everyPublicFunctionOfTheStoreIsAsync() throws {
        let folder = CareSyncCommand.repository.appendingPathComponent("Sources/CarePlanStore")
        // The store's operations: those that throw its error (value types' initialisers do not).
        let operations = try Self.lines(in: folder, matching: #"public (func|init)\b"#).map { line in
            (line, try Self.signature(at: line, in: folder))
        }.filter { $0.1.contains("throws(CarePlanStoreError)") }
        #expect(operations.count >= 40)
        let blocking = operations.filter { !$0.1.contains(" async throws") }.map(\.0)
        #expect(blocking.isEmpty, "synchronous store functions:\n\(blocking.joined(separator: "\n"))")
    }

    /// The store is split by what it keeps: no type of it offers more than 15 operations
    /// (public functions, counted per type, with its extensions; the core's one writer,
    /// `RecordTransaction`, keeps each kind of data in a part of its own, `RecordOutcomes` …).
    @Test func theStoreIsSplitByWhatItKeeps() throws {
        let folder = CareSyncCommand.repository.appendingPathComponent("Sources/CarePlanStore")
        var operations: [String: Int] = [:]
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            var owner = ""
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                if let match = line.firstMatch(of: #/^(?:public )?(?:final )?(?:extension|struct|class|enum|actor) (\w+)/#) {
                    owner = String(match.1)
                } else if line.contains(#/^\s+(@_spi\(CareCore\) )?public (static )?func /#) {
                    operations[owner, default: 0] += 1
                }
            }
        }
        #expect(operations["OutcomeStore", default: 0] >= 5 && operations["PlanStore", default: 0] >= 7)
        #expect(operations.keys.filter { $0.hasPrefix("Record") }.count >= 9, "the writer's parts: \(operations)")
        let large = operations.filter { $0.value > 15 }
        #expect(large.isEmpty, "store types with more than 15 operations: \(large)")
    }

    /// The name of the function around a `file:line: text` line of ``lines(in:matching:)``.
    static func enclosingFunction(of found: String, in folder: URL) throws -> String {
        let (file, number) = try location(found, in: folder)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines[..<number].reversed() {
            if let match = line.firstMatch(of: #/\bfunc (\w+)/#) { return String(match.1) }
        }
        return ""
    }

    /// The function declaration around a `file:line: text` line, with the two lines before it
    /// (where its attributes are).
    static func declaration(around found: String, in folder: URL) throws -> String {
        let (file, number) = try location(found, in: folder)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let index = lines[..<number].lastIndex(where: { $0.contains(#/\bfunc \w+/#) }) else { return "" }
        return lines[max(0, index - 2)...index].joined(separator: "\n")
    }

    /// The declaration at a `file:line: text` line, through its opening brace.
    static func signature(at found: String, in folder: URL) throws -> String {
        let (file, number) = try location(found, in: folder)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var signature = ""
        for line in lines[(number - 1)...] {
            signature += line + "\n"
            if line.hasSuffix("{") { break }
        }
        return signature
    }

    private static func location(_ found: String, in folder: URL) throws -> (URL, Int) {
        let parts = found.split(separator: ":", maxSplits: 2)
        let name = String(parts[0])
        let file = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.first { $0.lastPathComponent == name })
        return (file, try #require(Int(parts[1])))
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
