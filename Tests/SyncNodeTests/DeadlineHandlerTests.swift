import Foundation
import NIOCore
import NIOEmbedded
@testable import SyncNode
import SyncProtocol
import Testing

/// The connection deadlines on a clock the test moves: minutes pass in microseconds, and
/// nothing but the move reaches a deadline.
struct DeadlineHandlerTests {
    let clock = ManualClock()

    func channel() async throws -> NIOAsyncTestingChannel {
        let handler = DeadlineHandler(ConnectionDeadlines(handshake: .seconds(5), idle: .seconds(45), clock: clock))
        let channel = try await NIOAsyncTestingChannel(handler: handler)
        try await channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1))
        return channel
    }

    /// The error the handler sent before it closed the channel.
    func closedWith(_ channel: NIOAsyncTestingChannel) async throws -> Caresync_V1_ErrorCode {
        var frame = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        frame.moveReaderIndex(forwardBy: 4)
        try await channel.closeFuture.get()
        return try Frame.decode(frame).error.code
    }

    /// Moves the clock once the handler waits on it.
    func advance(by seconds: TimeInterval) async {
        await clock.sleeping()
        clock.advance(by: seconds)
    }

    @Test func silenceBeforeTheHandshakeCloses() async throws {
        let channel = try await channel()
        await advance(by: 4.5)
        #expect(clock.sleeps == 1, "the handshake deadline is still ahead")
        #expect(channel.isActive)
        clock.advance(by: 0.5)
        #expect(try await closedWith(channel) == .handshakeTimeout)
        #expect(!channel.isActive)
    }

    @Test func framesKeepAConnectionOpenUntilItGoesIdle() async throws {
        let channel = try await channel()
        for _ in 0..<10 {
            try await channel.writeInbound(ByteBuffer(bytes: [1]))
            await advance(by: 30)
        }
        #expect(channel.isActive)
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil)
        // The last frame came 30 s ago: the connection is idle 15 s later, not before.
        await advance(by: 14.5)
        #expect(clock.sleeps == 1, "the idle deadline is still ahead")
        clock.advance(by: 0.5)
        #expect(try await closedWith(channel) == .idleTimeout)
    }

    @Test func aClosedConnectionStopsWaiting() async throws {
        let channel = try await channel()
        await clock.sleeping()
        try await channel.close()
        try await channel.closeFuture.get()
        #expect(clock.sleeps == 0, "closing the connection ended its wait")
    }

    /// A primary listening on loopback, its deadlines on the test's clock: a client that
    /// connects and says nothing hears HANDSHAKE_TIMEOUT once the clock has moved 5 s.
    @Test func aListeningPrimaryClosesASilentClientWhenItsDeadlineClockMoves() async throws {
        let primary = try await TestPrimary(configure: { $0.security = .unencrypted })
        let client = try RawSocket(port: primary.port)
        await primary.deadlines.sleeping()
        primary.deadlines.advance(by: 5)
        let answer = await client.receiveAll()
        #expect(answer.closed)
        var frame = ByteBuffer(bytes: answer.bytes)
        frame.moveReaderIndex(forwardBy: 4)
        let error = try Frame.decode(frame).error
        #expect(error.code == .handshakeTimeout)
        #expect(error.message == "no handshake within 5.0 s")
        await primary.stop()
    }
}
