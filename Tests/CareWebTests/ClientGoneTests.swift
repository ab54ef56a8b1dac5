@testable import CareWeb
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

/// How a live stream learns that its browser has gone, on an embedded channel.
struct ClientGoneTests {
    func channel(withHandler: Bool) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        if withHandler { try channel.pipeline.syncOperations.addHandler(ClientGone()) }
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test func aBrowserThatClosesItsSideIsGoneWhileTheChannelStaysOpen() throws {
        let channel = try channel(withHandler: true)
        let gone = ClientGone.future(on: channel)
        channel.embeddedEventLoop.run()
        #expect(!isDone(gone))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(isDone(gone))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func aClosedChannelIsGoneWithOrWithoutTheHandler() throws {
        for withHandler in [true, false] {
            let channel = try channel(withHandler: withHandler)
            let gone = ClientGone.future(on: channel)
            channel.embeddedEventLoop.run()
            #expect(!isDone(gone))
            try channel.close().wait()
            channel.embeddedEventLoop.run()
            #expect(isDone(gone), "with the handler: \(withHandler)")
        }
    }

    /// Whether `future` has completed (the embedded loop runs what is due first).
    func isDone(_ future: EventLoopFuture<Void>) -> Bool {
        let done = NIOLockedValueBox(false)
        future.whenComplete { _ in done.withLockedValue { $0 = true } }
        return done.withLockedValue { $0 }
    }
}
