import ArgumentParser
import CareBackup
import CommandOptions
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

/// `caresync backup`: the store (and the primary's identity, if asked) in one sealed file,
/// made while the primary runs; `caresync backup inspect` shows what one holds.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Back the store up into one file sealed with a passphrase, while its primary runs.",
        discussion: """
            The passphrase comes from --passphrase-file (its first line) or $CARESYNC_BACKUP_PASSPHRASE, \
            never from the command line. `caresync restore` takes the file on this machine or another.
            """,
        subcommands: [Make.self, Inspect.self], defaultSubcommand: Make.self)

    struct Make: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "make", abstract: "Write a backup (the default).")

        @OptionGroup var options: StoreOptions
        @OptionGroup var passphrase: PassphraseOptions

        @Option(help: ArgumentHelp("The backup file to write (0600, in one piece).", valueName: "file"))
        var out: String

        @Flag(help: "Include the primary's identity: restored with it, the new primary is the same to every companion.")
        var withIdentity = false

        @Flag(help: "Print the manifest as JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let passphrase = try passphrase.read()
                let store = try await options.open()
                let identity = StoreOptions.identityDirectory(ofStoreAt: options.path)
                guard !withIdentity || FileManager.default.fileExists(atPath: identity + "/identity.pem") else {
                    throw UsageError(description: "\(identity) holds no identity: has this store's primary ever run?")
                }
                let backup = try await StoreBackup.make(of: store, identityDirectory: withIdentity ? identity : nil, now: Date())
                try backup.write(to: out, passphrase: passphrase)
                show(backup.manifest, file: out, json: json)
            }
        }
    }

    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect", abstract: "Show what a backup holds (every file checked), without restoring it.")

        @OptionGroup var passphrase: PassphraseOptions

        @Argument(help: ArgumentHelp("The backup file.", valueName: "file"))
        var file: String

        @Flag(help: "Print the manifest as JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                show(try StoreBackup.inspect(file, passphrase: try passphrase.read()), file: file, json: json)
            }
        }
    }
}

/// Where a backup's passphrase comes from.
/// A backup's manifest, as a line of text per fact or one JSON object.
func show(_ manifest: BackupManifest, file: String, json: Bool) {
    let store = manifest.store
    if json {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        LineOutput.standardOutput.write(Array((try? encoder.encode(manifest)) ?? Data()) + Array("\n".utf8))
        return
    }
    emit("\(file): CareSync backup, format \(manifest.format), made \(ISO8601.string(from: manifest.createdAt))")
    emit("Plan \(store.title.map { "\"\($0)\"" } ?? "without a title") (\(store.planID)) at revision \(store.revision): "
         + "\(store.activities) activities, \(store.outcomes) outcomes, \(store.measurements) measurements, \(store.devices) paired devices")
    emit(manifest.withIdentity ? "With the primary's identity: companions keep their pairing" : "Without the primary's identity: companions must pair again")
}
