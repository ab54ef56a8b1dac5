import Foundation
import RelayProtocol
import Testing

/// Syncthing's relay server itself (`strelaysrv`, Debian's syncthing-relaysrv), started here on
/// loopback with no pool to join: the id it prints for itself is the one ``RelayDeviceID``
/// gives its certificate.
@Suite struct RelayServerTests {
    let scratch = Scratch()

    @Test func theIdARelayPrintsIsItsCertificatesDigest() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let certificate = try String(contentsOfFile: scratch.path("relay-keys/cert.pem"), encoding: .utf8)
        let body = certificate.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body))
        #expect(relay.address.id == RelayDeviceID(certificateDER: der))
        #expect(relay.address.host == "127.0.0.1")
        #expect(relay.address.port == relay.port)
    }
}

/// A `strelaysrv` of the test's own: on loopback, IPv4, joining no pool (never Syncthing's
/// public one), its status service off, its keys in `keys`.
struct RelayServer {
    let process: RunningProcess
    let port: Int
    /// What it printed as its URI.
    let address: RelayAddress

    static func start(keys: String, arguments: [String] = []) async throws -> RelayServer {
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let process = try await RunningProcess(
            URL(fileURLWithPath: "/usr/bin/strelaysrv"),
            ["-keys", keys, "-listen", "127.0.0.1:\(port)", "-protocol", "tcp4", "-pools", "", "-status-srv", ""] + arguments)
        let line = try #require(await process.waitForLine { $0.contains("URI: relay://") }, "strelaysrv printed no URI: \(process.output)")
        let uri = String(line[line.range(of: "relay://")!.lowerBound...])
        return RelayServer(process: process, port: port, address: try RelayAddress(uri))
    }
}

/// A loopback port nothing listens on now (the kernel's pick, released for the caller to bind).
func freeLoopbackPort() throws -> Int {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
    }
    guard bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return Int(UInt16(bigEndian: address.sin_port))
}
