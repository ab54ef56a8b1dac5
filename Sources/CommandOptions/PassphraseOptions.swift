import ArgumentParser
import CareBackup

/// Where a backup's passphrase comes from: a file, else the environment; never the command line.
public struct PassphraseOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read the passphrase from the first line of this file (else $CARESYNC_BACKUP_PASSPHRASE).", valueName: "file"))
    public var passphraseFile: String?

    public init() {}

    public func read() throws -> BackupPassphrase { try BackupPassphrase.read(file: passphraseFile) }
}
