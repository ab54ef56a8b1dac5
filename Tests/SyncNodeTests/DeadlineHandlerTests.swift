import NIOCore
import NIOEmbedded
@testable import SyncNode
import SyncProtocol
import Testing

/// The deadline handler on the embedded event loop's clock: minutes pass in microseconds.
struct DeadlineHandlerTests {
    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            DeadlineHandler(ConnectionDeadlines(handshake: .seconds(5), idle: .seconds(45))))
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    func errorCode(_ channel: EmbeddedChannel) throws -> Caresync_V1_ErrorCode? {
        guard var frame = try channel.readOutbound(as: ByteBuffer.self) else { return nil }
        frame.moveReaderIndex(forwardBy: 4)
        return try Frame.decode(frame).error.code
    }

    @Test func silenceBeforeTheHandshakeCloses() throws {
        let channel = try channel()
        (channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .seconds(4))
        #expect(channel.isActive)
        (channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .seconds(2))
        #expect(try errorCode(channel) == .handshakeTimeout)
        #expect(!channel.isActive)
    }

    @Test func framesKeepAConnectionOpenUntilItGoesIdle() throws {
        let channel = try channel()
        let loop = channel.eventLoop as! EmbeddedEventLoop
        for _ in 0..<10 {
            try channel.writeInbound(ByteBuffer(bytes: [1]))
            loop.advanceTime(by: .seconds(30))
        }
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(16))
        #expect(try errorCode(channel) == .idleTimeout)
        #expect(!channel.isActive)
    }
}
