import NIOCore
import SyncProtocol

/// A TCP connection carrying frames: inbound frame payloads, outbound framed bytes.
typealias FramedChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

extension FramedChannel {
    /// Installs the TLS handlers (if any), the frame decoder and the deadline handler, then
    /// wraps the channel for async use. Must run on the channel's event loop (a bootstrap's
    /// initializer does).
    static func configure(
        _ channel: Channel, tls: (() throws -> [any ChannelHandler])?, maximumFrameBytes: Int, deadlines: ConnectionDeadlines
    ) -> EventLoopFuture<FramedChannel> {
        channel.eventLoop.makeCompletedFuture {
            if let tls { try channel.pipeline.syncOperations.addHandlers(try tls()) }
            try channel.pipeline.syncOperations.addHandlers([
                ByteToMessageHandler(FrameDecoder(maximumBytes: maximumFrameBytes)),
                DeadlineHandler(deadlines),
            ])
            return try FramedChannel(wrappingChannelSynchronously: channel)
        }
    }
}

extension NIOAsyncChannelOutboundWriter<ByteBuffer> {
    /// Frames and writes one envelope.
    func send(_ envelope: Caresync_V1_Envelope) async throws {
        try await write(Frame.encode(envelope))
    }
}

extension Channel {
    /// Frames and writes one envelope without waiting for the peer to read it (the bytes wait
    /// in the channel's buffer instead; the callers send one envelope at a time, rarely), then
    /// closes the channel if asked. The outbound writer's frames are whole buffers, so this one
    /// never lands inside another.
    func writeUnwaited(_ envelope: Caresync_V1_Envelope, thenClose: Bool) {
        guard let frame = try? Frame.encode(envelope, allocator: allocator) else { return }
        eventLoop.execute {
            self.writeAndFlush(frame, promise: nil)
            if thenClose { self.close(promise: nil) }
        }
    }
}

extension NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator {
    /// The next envelope, or `nil` when the peer has closed.
    mutating func nextEnvelope() async throws -> Caresync_V1_Envelope? {
        guard let payload = try await next() else { return nil }
        return try Frame.decode(payload)
    }
}
