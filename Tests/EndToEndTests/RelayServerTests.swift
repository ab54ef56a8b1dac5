import Foundation
import Logging
import NIOCore
import NodeIdentity
import RelayProtocol
import RelayTransport
import Synchronization
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

    /// Starts one on `port` (a free one unless given: the port of one killed, to bring it back),
    /// inside `namespace` if given; `arguments` are further options (a later one wins).
    static func start(keys: String, port: Int? = nil, arguments: [String] = [], in namespace: CaptureNamespace? = nil) async throws -> RelayServer {
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        let port = try port ?? freeLoopbackPort()
        let executable = "/usr/bin/strelaysrv"
        let options = ["-keys", keys, "-listen", "127.0.0.1:\(port)", "-protocol", "tcp4", "-pools", "", "-status-srv", ""] + arguments
        let process = if let namespace {
            try await namespace.start(executable, options)
        } else {
            try await RunningProcess(URL(fileURLWithPath: executable), options)
        }
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

/// ``RelayDialer`` and ``RelayMembership`` against `strelaysrv` itself: the three modes of
/// the protocol, and the bytes of a session passed both ways.
@Suite struct RelayTransportTests {
    let scratch = Scratch()

    /// A session's raw pipe, as its handlers see it: the bytes read, in order.
    final class Pipe: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let read = Mutex<[UInt8]>([])
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data).readableBytesView
            read.withLock { $0 += bytes }
        }
    }

    @Test func aSessionAskedForAtTheRelayCarriesBytesBothWaysIncludingThoseSentBeforeTheOtherSideJoined() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let member = RelayMembership(
            relay: relay.address, identity: try NodeIdentity.create(name: "member", now: Date()), logger: Logger(label: "test"))
        let invitations = AsyncStream<SessionInvitation>.makeStream()
        let membership = Task { await member.run { invitations.continuation.yield($0) } }
        defer { membership.cancel() }
        await member.joined()

        let dialer = RelayDialer()
        let asker = try NodeIdentity.create(name: "asker", now: Date())
        let asking = try await dialer.invitation(to: member.deviceID, at: relay.address, identity: asker)
        var offered = invitations.stream.makeAsyncIterator()
        let invited = try #require(await offered.next())
        // Each side is told who the other is, and gets a key of its own.
        #expect(invited.from == RelayDeviceID(certificateDER: asker.certificateDER) && asking.from == member.deviceID)
        #expect(invited.key != asking.key)
        // The asking side joins first and speaks at once: the relay holds its bytes for the other.
        let (near, far) = (Pipe(), Pipe())
        let first = try await dialer.joinSession(asking, at: relay.address) { channel in
            channel.pipeline.addHandler(near).map { channel }
        }
        try await first.writeAndFlush(ByteBuffer(string: "hello from the companion"))
        let second = try await dialer.joinSession(invited, at: relay.address) { channel in
            channel.pipeline.addHandler(far).map { channel }
        }
        try await second.writeAndFlush(ByteBuffer(string: "and from the primary"))
        try await waitFor("both ends read what the other sent", until: {
            String(decoding: far.read.withLock { $0 }, as: UTF8.self) == "hello from the companion"
                && String(decoding: near.read.withLock { $0 }, as: UTF8.self) == "and from the primary"
        })
        try await first.close()
        try await second.close()
    }

    @Test func aDeviceNotAtTheRelayIsNotFoundAndAnotherRelayIDIsRefused() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let nobody = RelayDeviceID(certificateDER: try NodeIdentity.create(name: "nobody", now: Date()).certificateDER)
        let asker = try NodeIdentity.create(name: "asker", now: Date())
        let notFound = try await #require(throws: RelayError.self) {
            try await RelayDialer().invitation(to: nobody, at: relay.address, identity: asker)
        }
        guard case .refused(_, let response) = notFound else { Issue.record("\(notFound)"); return }
        #expect(response.code == RelayResponse.notFound.code)
        let wrong = RelayAddress(host: relay.address.host, port: relay.port, id: nobody)
        let changed = try await #require(throws: RelayError.self) { try await RelayDialer().invitation(to: nobody, at: wrong, identity: asker) }
        #expect(changed.description.hasPrefix("relay identity changed"), "\(changed)")
    }
}
