import CarePlan
import Crypto
import Foundation

/// What module CareBackup adds to the identity files (a plain value of module CarePlan):
/// reading them from a directory, and their digest.
extension IdentityFiles {
    /// The files in `directory` now.
    public static func read(from directory: String) throws(BackupError) -> IdentityFiles {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .file(path: directory, reason: "cannot be listed: \(error.localizedDescription)")
        }
        var files: [String: [UInt8]] = [:]
        for name in names where !name.hasPrefix(".") && !name.hasSuffix(".lock") && !name.hasSuffix(".pending") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            files[name] = try StoreBackup.contents(of: directory + "/" + name)
        }
        return IdentityFiles(files)
    }

    /// SHA-256 over every name and content, in name order: equal digests, equal files.
    public var digest: [UInt8] {
        var hash = SHA256()
        for name in names {
            let content = files[name]!
            hash.update(data: Array(name.utf8) + [0] + ByteWriter.bytes(of: UInt64(content.count)))
            hash.update(data: content)
        }
        return Array(hash.finalize())
    }
}
