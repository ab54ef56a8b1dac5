import Foundation
import NodeIdentity
import Testing

struct NodeIdentityTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-identity-\(UUID().uuidString)").path

    @Test func madeOnFirstStartKeptPrivateAndLoadedAgain() throws {
        let first = try NodeIdentity.loadOrCreate(in: directory, name: "Kitchen tablet")
        for file in ["identity-key.pem", "identity-certificate.pem"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file)")
        }
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["x509", "-noout", "-fingerprint", "-sha256", "-in", directory + "/identity-certificate.pem"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // "sha256 Fingerprint=AB:CD:…"
        let openssl = try #require(text.split(separator: "=").last).replacingOccurrences(of: ":", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        #expect(openssl == identity.fingerprint)
    }

    @Test func halfAnIdentityIsRefused() throws {
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        try FileManager.default.removeItem(atPath: directory + "/identity-key.pem")
        #expect(throws: IdentityError.incomplete(directory: directory)) {
            try NodeIdentity.loadOrCreate(in: directory, name: "Widget")
        }
    }

    @Test func aCertificateOfAnotherKeyIsRefused() throws {
        _ = try NodeIdentity.loadOrCreate(in: directory, name: "A")
        _ = try NodeIdentity.loadOrCreate(in: directory + "-b", name: "B")
        try FileManager.default.removeItem(atPath: directory + "/identity-certificate.pem")
        try FileManager.default.copyItem(atPath: directory + "-b/identity-certificate.pem", toPath: directory + "/identity-certificate.pem")
        #expect(throws: IdentityError.self) { try NodeIdentity.loadOrCreate(in: directory, name: "A") }
    }
}
