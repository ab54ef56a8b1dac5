import NIOCore
import NIOEmbedded
import NIOSSL
import NIOTLS
@testable import SyncNode
import Testing

/// The two small handlers around NIOSSL's, on an embedded channel: what they pass on, keep
/// back and report.
struct TLSHandlerTests {
    /// A channel with a `TLSHandshakeWaiter`, and the future it completes.
    func waiter() throws -> (EmbeddedChannel, EventLoopFuture<Void>) {
        let channel = EmbeddedChannel()
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(TLSHandshakeWaiter(handshake))
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, handshake.futureResult)
    }

    @Test func theWaiterSucceedsWhenTheHandshakeCompletes() throws {
        let (channel, handshake) = try waiter()
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        try handshake.wait()
        _ = try channel.finish()
    }

    @Test func theWaiterFailsWithTheErrorThatCameFirst() throws {
        let (channel, handshake) = try waiter()
        channel.pipeline.fireErrorCaught(NIOSSLError.handshakeFailed(.sslError([])))
        #expect(throws: NIOSSLError.self) { try handshake.wait() }
        #expect(throws: NIOSSLError.self) { try channel.throwIfErrorCaught() }
    }

    @Test func theWaiterFailsWhenTheConnectionClosesFirst() throws {
        let (channel, handshake) = try waiter()
        try channel.close().wait()
        #expect(throws: ChannelError.eof) { try handshake.wait() }
    }

    @Test func aCloseWithoutCloseNotifyIsAnEndOfStreamAndOtherErrorsPassOn() throws {
        let channel = EmbeddedChannel(handler: TLSEndOfStream())
        channel.pipeline.fireErrorCaught(NIOSSLError.uncleanShutdown)
        try channel.throwIfErrorCaught()
        channel.pipeline.fireErrorCaught(NIOSSLError.readInInvalidTLSState)
        #expect(throws: NIOSSLError.self) { try channel.throwIfErrorCaught() }
    }
}
