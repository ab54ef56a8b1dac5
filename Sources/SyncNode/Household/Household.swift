import Foundation
import Logging
import NodeIdentity
import PrivateFiles
import SyncProtocol

/// A household device that follows several people's primaries: one identity, so that each
/// primary knows it by one fingerprint, and one state directory holding every pairing.
///
/// The identity is at the top of the directory; each primary paired with has a directory of
/// its own under `people/`, named by the primary's fingerprint, with the state of a
/// ``CompanionNode`` following it (its context, outbox and alerts). A directory an earlier
/// version made for a single primary (that state at the top) is moved under `people/` first.
public enum Household {
    /// The directories of the primaries paired with, by name, after moving an earlier
    /// version's single pairing into place.
    public static func people(in directory: String, logger: Logger) async throws -> [String] {
        try await adoptSinglePairing(in: directory, logger: logger)
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: directory + "/people")) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(directory)/people/\($0)" }
            .filter { manager.fileExists(atPath: $0 + "/" + CompanionState.fileName) }
    }

    /// Moves the state an earlier version kept at the top of `directory` (one primary) to
    /// that primary's directory under `people/`; a state never paired is left alone.
    private static func adoptSinglePairing(in directory: String, logger: Logger) async throws {
        let file = directory + "/" + CompanionState.fileName
        let manager = FileManager.default
        guard manager.fileExists(atPath: file) else { return }
        let state = try await CompanionState.open(directory: directory, logger: logger)
        let primaryID = state.primaryID
        try state.close()
        guard let primaryID else { return }
        let person = "\(directory)/people/\(primaryID.prefix(16))"
        try PrivateFiles.makeDirectory(directory + "/people", own: true)
        try PrivateFiles.makeDirectory(person, own: true)
        for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: file + suffix) {
            try manager.moveItem(atPath: file + suffix, toPath: person + "/" + CompanionState.fileName + suffix)
        }
    }

    /// The configuration of the node following the primary whose state is in `person`:
    /// the household's, with the identity at the household's top.
    public static func configuration(for person: String, of household: CompanionConfiguration) -> CompanionConfiguration {
        var configuration = household
        configuration.identityDirectory = household.identityDirectory ?? household.stateDirectory
        configuration.stateDirectory = person
        return configuration
    }

    /// Where the standby copy of the primary followed from `person` is kept (protocol
    /// section 23): filled only if that primary paired this device with `--standby`.
    public static func standbyDirectory(of person: String) -> String { person + "/standby" }

    /// Pairs the household device (whose directory is `configuration.stateDirectory`) with
    /// one more primary, using a code from `caresync pair`. A new pairing with a primary
    /// paired before replaces the earlier one; the other primaries are not touched.
    ///
    /// - Throws: what ``CompanionNode/pair(code:)`` throws; nothing is kept then.
    public static func pair(code: PairingCode, configuration: CompanionConfiguration) async throws -> PairingResult {
        let root = configuration.stateDirectory
        try PrivateFiles.makeDirectory(root, own: true)
        try await adoptSinglePairing(in: root, logger: configuration.logger)
        try PrivateFiles.makeDirectory(root + "/people", own: true)
        let pairing = "\(root)/people/.pairing-\(UUID().uuidString.lowercased())"
        let node = try await CompanionNode(configuration: Self.configuration(for: pairing, of: configuration))
        let result: PairingResult
        do {
            result = try await node.pair(code: code)
            try node.close()
        } catch {
            try? node.close()
            try? FileManager.default.removeItem(atPath: pairing)
            throw error
        }
        let person = "\(root)/people/\(result.primaryID.prefix(16))"
        let manager = FileManager.default
        if manager.fileExists(atPath: person) { try manager.removeItem(atPath: person) }
        try manager.moveItem(atPath: pairing, toPath: person)
        return result
    }
}
