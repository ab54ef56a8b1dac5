import Foundation
import NodeIdentity
import TestSupport
import Testing

/// The certificate the care app serves over HTTPS names its hosts (subjectAltName), is the
/// identity's key's, is kept while its hosts stay the same, and leaves the identity alone.
struct ServerCertificateTests {
    let scratch = Scratch()
    var directory: String { scratch.path("server-cert") }

    @Test func itNamesTheHostsAndIsKeptWhileTheyStay() throws {
        let identity = try NodeIdentity.loadOrCreate(in: directory, name: "Primary")
        let hosts = ["kitchen.local", "kitchen", "192.168.1.20", "fe80::1", "127.0.0.1"]
        let first = try ServerCertificate.loadOrCreate(for: identity, hosts: hosts, in: directory)
        #expect(first.hosts == hosts.sorted())
        #expect(first.certificate.publicKey == identity.privateKey.publicKey)
        #expect(first.fingerprint != identity.fingerprint)
        let again = try ServerCertificate.loadOrCreate(for: identity, hosts: hosts.reversed(), in: directory)
        #expect(again.der == first.der)
        let moved = try ServerCertificate.loadOrCreate(for: identity, hosts: ["kitchen.local", "192.168.1.21"], in: directory)
        #expect(moved.der != first.der)
        #expect(moved.hosts == ["192.168.1.21", "kitchen.local"])
        // The identity companions pin is untouched.
        #expect(try NodeIdentity.loadOrCreate(in: directory, name: "Primary").fingerprint == identity.fingerprint)
    }

    /// OpenSSL reads the names back from the file: an independent check of the encoding.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func openSSLReadsTheSubjectAltName() throws {
        let identity = try NodeIdentity.loadOrCreate(in: directory, name: "Primary")
        _ = try ServerCertificate.loadOrCreate(for: identity, hosts: ["kitchen.local", "127.0.0.1"], in: directory)
        let text = try openSSL(["x509", "-noout", "-ext", "subjectAltName", "-in", directory + "/server-certificate.pem"])
        #expect(text.contains("DNS:kitchen.local") && text.contains("IP Address:127.0.0.1"), "\(text)")
    }
}
