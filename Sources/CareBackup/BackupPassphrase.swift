import Foundation

/// The passphrase a backup is sealed with: read from a file or the environment, never from
/// the command line (where other users' `ps` would show it).
public struct BackupPassphrase: Sendable {
    let bytes: [UInt8]

    /// The environment variable read when no file is given.
    public static let environmentVariable = "CARESYNC_BACKUP_PASSPHRASE"
    /// The fewest characters taken.
    public static let minimumLength = 8

    /// `text`, without a final line break.
    ///
    /// - Throws: ``BackupError/passphrase(_:)`` if it has fewer than ``minimumLength`` characters.
    public init(_ text: String) throws(BackupError) {
        var text = Substring(text)
        while text.last?.isNewline == true { text.removeLast() }
        guard text.count >= Self.minimumLength else {
            throw .passphrase("it has \(text.count) characters; a backup's passphrase needs at least \(Self.minimumLength)")
        }
        bytes = Array(text.utf8)
    }

    /// The first line of `file`, else `$CARESYNC_BACKUP_PASSPHRASE`.
    public static func read(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(BackupError) -> Self {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw .passphrase("\(file) cannot be read") }
            return try Self(String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? "")
        }
        guard let text = environment[environmentVariable] else {
            throw .passphrase("give --passphrase-file FILE or set \(environmentVariable)")
        }
        return try Self(text)
    }
}
