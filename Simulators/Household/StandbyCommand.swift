import ArgumentParser
import CareBackup
import CommandOptions
import Foundation
import LineOutput
import StrictJSON
import SyncNode

/// `household-sim standby`: what the standby copies on this device hold, and a copy made a
/// backup file that `caresync restore` takes.
struct StandbyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "standby", abstract: "Show the standby copies this device keeps, or export one as a backup file.",
        subcommands: [Status.self, Export.self], defaultSubcommand: Status.self)

    /// Which person's copy: the only one, or the one `person` begins the primary's id of.
    struct Choice: ParsableArguments {
        @Option(help: ArgumentHelp("The device's state directory.", valueName: "dir"))
        var stateDir: String

        @Option(help: ArgumentHelp("Whose copy, by the beginning of their primary's id, when the device follows several.", valueName: "id"))
        var person: String?

        /// The copy directories chosen, by the person's directory name.
        func copies(all: Bool) throws -> [(name: String, directory: String)] {
            let people = (try? FileManager.default.contentsOfDirectory(atPath: stateDir + "/people")) ?? []
            let kept = people.filter { !$0.hasPrefix(".") }.sorted()
                .map { (name: $0, directory: Household.standbyDirectory(of: stateDir + "/people/" + $0)) }
                .filter { FileManager.default.fileExists(atPath: $0.directory + "/base") }
            let chosen = kept.filter { person.map($0.name.hasPrefix) ?? true }
            guard !chosen.isEmpty else {
                throw ValidationError(person.map { "no standby copy of a primary beginning \"\($0)\" in \(stateDir)" }
                    ?? "no standby copy in \(stateDir): pair with a code from `caresync pair --role household --standby`, then follow")
            }
            guard all || chosen.count == 1 else {
                throw ValidationError("this device keeps copies for \(chosen.map(\.name).joined(separator: ", ")): say whose with --person")
            }
            return chosen
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Show each standby copy's revision and size (the default).")

        @OptionGroup var choice: Choice

        @Flag(help: "Print one JSON object per copy.")
        var json = false

        func run() throws {
            for copy in try choice.copies(all: true) {
                let read = try StandbyCopy.read(from: copy.directory)
                if json {
                    emitJSON([
                        "person": .string(copy.name), "revision": .int(read.held.revision), "bytes": .int(read.image.count),
                        "withIdentity": .bool(read.identity != nil),
                    ])
                } else {
                    emit(
                        "\(copy.name): revision \(read.held.revision), \(read.image.count) bytes, \(read.identity == nil ? "without" : "with") the primary's identity")
                }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write a standby copy as a backup file (0600, sealed with a passphrase) for `caresync restore`.")

        @OptionGroup var choice: Choice
        @OptionGroup var passphrase: PassphraseOptions

        @Option(help: ArgumentHelp("The backup file to write.", valueName: "file"))
        var out: String

        func run() async throws {
            let copy = try choice.copies(all: false)[0]
            let manifest = try await StandbyCopy.export(from: copy.directory, to: out, passphrase: try passphrase.read(), now: Date())
            emit(
                "\(out): revision \(manifest.store.revision), \(manifest.store.outcomes) outcomes, \(manifest.withIdentity ? "with" : "without") the primary's identity")
        }
    }
}
