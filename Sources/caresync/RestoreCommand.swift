import ArgumentParser
import CareBackup
import CommandOptions
import Foundation
import LineOutput
import PrivateFiles

/// `caresync restore`: a backup as the store (and identity) of a primary, here or on a new
/// machine, checked whole before anything is written.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Restore a backup as the store at --store (with its identity, if the backup has it).",
        discussion: """
            The backup is checked before anything is written: the passphrase, every file's checksum, \
            SQLite's integrity check and the store's figures. A store already at --store is replaced \
            only with --replace; stop its primary first.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var passphrase: PassphraseOptions

    @Argument(help: ArgumentHelp("The backup file.", valueName: "file"))
    var file: String

    @Flag(help: "Replace a store (and identity) already there.")
    var replace = false

    @Flag(help: "Print the manifest as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let passphrase = try passphrase.read()
            let path = options.path
            try PrivateFiles.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path, own: false)
            let manifest = try await StoreRestore.restore(
                file, passphrase: passphrase, storePath: path, identityDirectory: StoreOptions.identityDirectory(ofStoreAt: path), replace: replace)
            show(manifest, file: file, json: json)
            if !json { emit("Restored to \(path)") }
        }
    }
}
