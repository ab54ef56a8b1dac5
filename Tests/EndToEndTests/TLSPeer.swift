import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NodeIdentity
import SyncNode
import Synchronization
import SyncProtocol
import Clocks

/// A TLS 1.3 client on loopback that presents `identity` and then sends bytes no
/// well-behaved companion would, to test the primary inside the encryption.
final class TLSPeer {
    private let channel: any Channel
    private let received: Received

    /// Everything the primary sent, and whether it closed its side.
    final class Received: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let state = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            state.withLock { $0.bytes += buffer.readableBytesView }
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLock { $0.closed = true }
        }

        /// The primary closed its side (the TLS close_notify, then end of stream).
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .inputClosed = event as? ChannelEvent { state.withLock { $0.closed = true } }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// Below TLS: ends the TCP sending side on ``RaggedClose`` without a TLS close_notify.
    private final class TCPCloser: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        struct RaggedClose {}

        func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
            if event is RaggedClose {
                context.close(mode: .output, promise: promise)
            } else {
                context.triggerUserOutboundEvent(event, promise: promise)
            }
        }
    }

    init(port: Int, identity: NodeIdentity) async throws {
        var configuration = try NodeTLS.configuration(identity: identity, server: false)
        // This peer attacks the primary; which primary it reached does not matter to it.
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let received = Received()
        self.received = received
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        TCPCloser(), try NIOSSLClientHandler(context: context, serverHostname: nil), received,
                    ])
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    /// The local port, which the primary sees as the peer's.
    var localPort: Int { channel.localAddress?.port ?? 0 }

    /// Sends one envelope as a frame.
    func send(_ envelope: Caresync_V1_Envelope) async throws {
        try await send(Array(try Frame.encode(envelope).readableBytesView))
    }

    /// Ends the sending side (TLS close_notify, then the TCP half-close).
    func shutdownWrite() async {
        try? await channel.close(mode: .output).get()
    }

    /// Ends the TCP sending side without a TLS close_notify, as a peer that crashes or
    /// closes its socket carelessly does; what the primary sends can still be read.
    func shutdownWriteWithoutCloseNotify() async {
        try? await channel.triggerUserOutboundEvent(TCPCloser.RaggedClose()).get()
    }

    /// Closes the connection (TLS close_notify, then TCP close) and waits until it is closed.
    func close() async {
        try? await channel.close().get()
    }

    /// Every whole frame received so far, decoded.
    var frames: [Caresync_V1_Envelope] {
        get throws { try Self.frames(in: received.state.withLock { $0.bytes }) }
    }

    /// The first frame from index `known` on that satisfies `predicate`, once it has arrived;
    /// ``Closed`` if the primary closed the connection without sending it.
    func waitForFrame(after known: Int = 0, where predicate: (Caresync_V1_Envelope) -> Bool) async throws -> Caresync_V1_Envelope {
        try await waitFor("a frame after the first \(known)") {
            let closed = received.state.withLock { $0.closed }
            let frames = try frames
            if let found = frames.dropFirst(known).first(where: predicate) { return .found(found) }
            if closed { throw Closed(frames: frames.count) }
            return .notYet("\(frames.count) frames, the last \(frames.last.map { "\($0)" } ?? "none")")
        }
    }

    /// The primary closed the connection before the frame waited for.
    struct Closed: Error, CustomStringConvertible {
        let frames: Int
        var description: String { "the primary closed the connection after \(frames) frames, none of them the one waited for" }
    }

    /// The whole frames at the start of `bytes`, decoded.
    static func frames(in bytes: [UInt8]) throws -> [Caresync_V1_Envelope] {
        var buffer = ByteBuffer(bytes: bytes)
        var frames: [Caresync_V1_Envelope] = []
        while let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self),
              let payload = buffer.getSlice(at: buffer.readerIndex + 4, length: Int(length)) {
            frames.append(try Frame.decode(payload))
            buffer.moveReaderIndex(forwardBy: 4 + Int(length))
        }
        return frames
    }

    /// Stops reading, so that what the primary sends piles up in its own buffers.
    func stopReading() async throws {
        try await channel.setOption(.autoRead, value: false).get()
    }

    /// Returns once `count` bytes have arrived.
    func waitForBytes(_ count: Int) async throws {
        try await waitFor("\(count) bytes", seen: { "\(self.received.state.withLock { $0.bytes.count }) bytes" }) {
            received.state.withLock { $0.bytes.count >= count }
        }
    }

    /// Waits until the primary closes, or the suite's `patience` runs out.
    func receiveAll() async -> (bytes: [UInt8], closed: Bool) {
        let deadline = Date().addingTimeInterval(patience.inSeconds)
        while Date() < deadline && !received.state.withLock({ $0.closed }) { try? await Task.sleep(for: .milliseconds(20)) }
        return received.state.withLock { $0 }
    }

    deinit { channel.close(promise: nil) }
}
