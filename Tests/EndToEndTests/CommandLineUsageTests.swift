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
}
