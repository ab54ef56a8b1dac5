import Foundation
import Testing

/// What the command line says when what it is given is wrong: a store that is not there,
/// words it cannot parse (issue 53).
struct CommandLineUsageTests {
    let scratch = Scratch()

    /// A misspelt --store makes no file and no directory; the refusal names the path tried.
    @Test func aStoreThatIsNotThereIsNotMade() async throws {
        let store = scratch.path("m/stroe.sqlite")
        let result = try await CareSyncCommand.run(executable: CareSyncCommand.executable, ["--store", store, "today"])
        #expect(result.status == 1)
        #expect(result.stderr == "caresync: no store at \(store): make one with `caresync init` or `caresync plan load FILE`, "
            + "or give --store an existing one\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("m")))
    }

    /// A usage error is one line and exit status 64, as `caresync --help` says; a misspelt
    /// command is named as unknown, with the nearest, even with --store before it.
    @Test(arguments: [
        (["plan", "lod", "plan.json"], "unknown command 'lod' of `caresync plan`; did you mean 'load'?; see `caresync plan --help`"),
        (["todya"], "unknown command 'todya' of `caresync`; did you mean 'today'?; see `caresync --help`"),
        (["fhir", "frobnicate"], "unknown command 'frobnicate' of `caresync fhir`; see `caresync fhir --help`"),
        (["today", "--date", "soon"], "The value 'soon' is invalid for '--date <YYYY-MM-DD>'; see `caresync today --help`"),
    ])
    func aUsageErrorIsOneLine(arguments: [String], message: String) async throws {
        let result = try await CareSyncCommand.run(
            executable: CareSyncCommand.executable, ["--store", scratch.path("store.sqlite")] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "caresync: \(message)\n")
        let help = try await CareSyncCommand.run(executable: CareSyncCommand.executable, ["--help"], environment: ["COLUMNS": "200"])
        #expect(help.stdout.contains("Errors print one line on stderr. A command line that does not parse"))
        #expect(help.stdout.contains("exits with status 64"))
    }

    /// `--value -5` is a value, not a missing one: a scale says why it does not take it.
    @Test func aNegativeValueIsTakenAsOne() async throws {
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        #expect(try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json")).status == 0)
        let result = try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "-5")
        #expect(result.status == 1)
        #expect(result.stderr.contains("-5"), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    /// Help at 80 columns reads as paragraphs: no line ends where the next line's first
    /// word would still have fitted, as hard line breaks in a discussion make it do.
    @Test(arguments: [
        ["caresync", "--help"], ["caresync", "pair", "--help"], ["caresync", "primary", "--help"],
        ["caresync", "fhir", "connect", "--help"], ["caresync", "fhir", "import", "--help"], ["caresync", "plan", "load", "--help"],
        ["caresync", "insights", "--help"], ["caresync", "meds", "list", "--help"], ["caresync", "meds", "show", "--help"],
        ["caresync", "share", "report", "--help"], ["watch-sim", "help", "follow"], ["household-sim", "follow", "--help"],
        ["widget-sim", "refresh", "--help"],
    ])
    func helpReadsAsParagraphsAtEightyColumns(command: [String]) async throws {
        let executable = CareSyncCommand.binDirectory.appendingPathComponent(command[0])
        let help = try await CareSyncCommand.run(executable: executable, Array(command.dropFirst()), environment: ["COLUMNS": "80"])
        #expect(help.status == 0)
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        // swift-argument-parser fills a discussion to 79 columns, options to 80, and never
        // wraps the usage line.
        for (line, next) in zip(lines, lines.dropFirst()) where !line.hasPrefix("USAGE:") {
            #expect(line.count <= 80, "\(line)")
            let indent = line.prefix { $0 == " " }.count
            guard let word = next.dropFirst(indent).split(separator: " ").first, next.prefix(indent).allSatisfy({ $0 == " " }),
                  next.dropFirst(indent).first?.isLowercase == true, !line.isEmpty,
                  !line.dropFirst(indent).contains("  ")  // a row of a list or of the options
            else { continue }
            #expect(line.count + 1 + word.count >= 80, "ragged: \"\(line)\" / \"\(next)\"")
        }
    }
}
