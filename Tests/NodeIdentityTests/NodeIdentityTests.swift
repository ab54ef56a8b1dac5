import ChildProcess
import Foundation
import NodeIdentity
import TestSupport
import Testing

struct NodeIdentityTests {
    let scratch = Scratch()
    var directory: String { scratch.path("identity") }

    @Test func madeOnFirstStartKeptPrivateAndLoadedAgain() throws {
        let first = try NodeIdentity.loadOrCreate(in: directory, name: "Kitchen tablet")
        #expect(try mode(directory + "/identity.pem") == 0o600)
        #expect(try mode(directory) == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["identity.pem"])
        let again = try NodeIdentity.loadOrCreate(in: directory, name: "another name")
        #expect(again.fingerprint == first.fingerprint)
        #expect(again.certificateDER == first.certificateDER)
        #expect(first.fingerprint.count == 64)
        #expect(first.displayFingerprint.split(separator: "-").count == 16)
        #expect(try NodeIdentity.loadOrCreate(in: directory + "-other", name: "Kitchen tablet").fingerprint != first.fingerprint)
    }

    /// The fingerprint is what OpenSSL computes for the certificate file: an independent check.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func theFingerprintIsTheCertificatesSHA256() throws {
        let identity = try NodeIdentity.loadOrCreate(in: directory, name: "Watch")
        let text = try openSSL(["x509", "-noout", "-fingerprint", "-sha256", "-in", directory + "/identity.pem"])
        // "sha256 Fingerprint=AB:CD:…"
        let openssl = try #require(text.split(separator: "=").last).replacingOccurrences(of: ":", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        #expect(openssl == identity.fingerprint)
    }

    @Test func anOwnDirectoryIsNarrowedTo0700() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "Watch")
        #expect(try mode(directory) == 0o700)
    }

    /// An identity of an earlier version (two files) is moved into the one file, unchanged.
    @Test func twoLegacyFilesBecomeOne() throws {
        let identity = try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        try splitIntoLegacyFiles()
        let again = try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        #expect(again.fingerprint == identity.fingerprint)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["identity.pem"])
        #expect(try mode(directory + "/identity.pem") == 0o600)
    }

    /// Half of a legacy pair (a key whose certificate was never written) was never used: a new
    /// identity replaces it, and no copy of the old key is left.
    @Test func halfALegacyIdentityIsReplaced() throws {
        let identity = try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        try splitIntoLegacyFiles()
        try FileManager.default.removeItem(atPath: directory + "/identity-certificate.pem")
        let new = try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        #expect(new.fingerprint != identity.fingerprint)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["identity.pem"])
    }

    /// A legacy certificate that cannot be read (here a directory in its place, which even
    /// root cannot read as text) is an error: the key beside it is kept, not replaced by a new
    /// identity, which would undo the pairing.
    @Test func anUnreadableLegacyFileIsAnErrorAndTheKeyIsKept() throws {
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        try splitIntoLegacyFiles()
        let certificate = directory + "/identity-certificate.pem"
        try FileManager.default.removeItem(atPath: certificate)
        try FileManager.default.createDirectory(atPath: certificate, withIntermediateDirectories: false)
        #expect {
            try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        } throws: { error in
            guard case .unreadable(let path, _) = error as? IdentityError else { return false }
            return path == certificate
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/identity-key.pem"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/identity.pem"))
    }

    @Test func aCertificateOfAnotherKeyIsRefused() throws {
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "A")
        _ = try NodeIdentity.loadOrCreate(in: directory + "-b", name: "B")
        let mine = try String(contentsOfFile: directory + "/identity.pem", encoding: .utf8)
        let theirs = try String(contentsOfFile: directory + "-b/identity.pem", encoding: .utf8)
        let keyEnd = try #require(mine.range(of: "-----END PRIVATE KEY-----\n"))
        let certificate = try #require(theirs.range(of: "-----BEGIN CERTIFICATE-----"))
        try (String(mine[..<keyEnd.upperBound]) + String(theirs[certificate.lowerBound...]))
            .write(toFile: directory + "/identity.pem", atomically: false, encoding: .utf8)
        #expect(throws: IdentityError.mismatched(path: directory + "/identity.pem")) {
            try NodeIdentity.loadOrCreate(in: directory, name: "A")
        }
    }

    @Test func leftoverTemporaryFilesAreRemoved() throws {
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "A")
        try "key".write(toFile: directory + "/.identity.pem.tmp-4242", atomically: false, encoding: .utf8)
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "A")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["identity.pem"])
    }

    /// Writes the identity as the two files of an earlier version, and removes the one file.
    func splitIntoLegacyFiles() throws {
        let text = try String(contentsOfFile: directory + "/identity.pem", encoding: .utf8)
        let split = try #require(text.range(of: "-----BEGIN CERTIFICATE-----"))
        try String(text[..<split.lowerBound]).write(toFile: directory + "/identity-key.pem", atomically: false, encoding: .utf8)
        try String(text[split.lowerBound...]).write(toFile: directory + "/identity-certificate.pem", atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: directory + "/identity.pem")
    }

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }
}

/// What `openssl ARGUMENTS` prints: an independent reader of the files.
func openSSL(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.runUnblocked()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text
}
