import Logging
import NIOCore
import SyncProtocol

/// A TCP connection carrying frames: inbound frame payloads, outbound framed bytes.
///
/// The framing is an edge of SyncNode, where messages become bytes and back: the
/// `Caresync_V1_Envelope`s that ``PrimaryConnection``, ``CompanionSession`` and
/// ``ConnectionRegistry`` hand it are encoded here, and read frames decoded.
typealias FramedChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

extension FramedChannel {
    /// Installs the TLS handlers (if any), the frame decoder, the deadline handler and then
    /// `framing`'s (which see frames before the task does), then wraps the channel for async
    /// use. Must run on the channel's event loop (a bootstrap's initializer does).
    static func configure(
        _ channel: Channel, tls: (() throws -> [any ChannelHandler])?, maximumFrameBytes: Int, deadlines: ConnectionDeadlines,
        framing: [any ChannelHandler] = []
    ) -> EventLoopFuture<FramedChannel> {
        channel.eventLoop.makeCompletedFuture {
            if let tls { try channel.pipeline.syncOperations.addHandlers(try tls() + [TLSEndOfStream()]) }
            try channel.pipeline.syncOperations.addHandlers([
                ByteToMessageHandler(FrameDecoder(maximumBytes: maximumFrameBytes)),
                DeadlineHandler(deadlines),
            ] + framing)
            return try FramedChannel(wrappingChannelSynchronously: channel)
        }
    }
}

extension ChannelOutboundInvoker {
    /// Closes the connection once what has been written so far is sent, as Protocol/README.md
    /// describes (section 3, "Ending a connection"): first only the sending side (the TLS
    /// close_notify, then the TCP FIN once the writes are flushed), so the peer reads the
    /// last frame; the socket is then released as soon as the peer's data ends too (its
    /// close_notify or FIN, which NIO turns into a full close once both directions are shut).
    /// The full close asked for right after bounds the wait for a peer that never closes:
    /// NIOSSL gives up waiting for its close_notify after 5 s.
    func closeAfterWrites() {
        close(mode: .output, promise: nil)
        close(mode: .all, promise: nil)
    }
}

extension NIOAsyncChannelOutboundWriter<ByteBuffer> {
    /// Frames and writes one envelope.
    func send(_ envelope: Caresync_V1_Envelope) async throws {
        try await write(Frame.encode(envelope))
    }

    /// Sends a connection's last frame. A peer that has gone cannot hear it, which is no
    /// failure: it is logged at debug level.
    func sendLast(_ envelope: Caresync_V1_Envelope, logger: Logger) async {
        do {
            try await send(envelope)
        } catch {
            logger.debug("the last frame could not be sent: the peer has gone", metadata: ["error": "\(error)"])
        }
    }
}

extension Channel {
    /// Frames and writes one envelope without waiting for the peer to read it (the bytes wait
    /// in the channel's buffer instead; the callers send one envelope at a time, rarely), then
    /// closes the channel if asked, as ``closeAfterWrites()`` does. The outbound writer's
    /// frames are whole buffers, so this one never lands inside another.
    func writeUnwaited(_ envelope: Caresync_V1_Envelope, thenClose: Bool) {
        guard let frame = try? Frame.encode(envelope) else { return }
        eventLoop.execute {
            self.writeAndFlush(frame, promise: nil)
            if thenClose { self.closeAfterWrites() }
        }
    }
}

extension NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator {
    /// The next envelope, or `nil` when the peer's data has ended (its close_notify, or a
    /// TCP close without one: ``TLSEndOfStream``). A frame that breaks the protocol throws
    /// its ``ProtocolError``; a failed transport (a reset, a failed TLS handshake) its own error.
    mutating func nextEnvelope() async throws -> Caresync_V1_Envelope? {
        guard let payload = try await next() else { return nil }
        return try Frame.decode(payload)
    }
}
