import NIOCore
import NIOEmbedded
import Synchronization
@testable import SyncNode
import SyncProtocol
import Testing

/// The companion's reply intake on an embedded event loop: which frames it answers itself
/// and which it passes on to the connection's task.
struct ReplyIntakeTests {
    let intake = ReplyIntake()
    let channel: EmbeddedChannel
    /// The message ids of the replies delivered.
    final class Delivered: Sendable {
        let ids = Mutex<[String]>([])
    }

    let delivered = Delivered()

    init() {
        channel = EmbeddedChannel(handler: intake)
    }

    func arm() {
        intake.control(on: channel.eventLoop).arm { [delivered] reply in delivered.ids.withLock { $0.append(reply.messageID) } }
        channel.embeddedEventLoop.run()
    }

    /// Reads `bytes` as a frame's payload; returns whether the intake passed it on intact.
    func passesOn(_ bytes: [UInt8]) throws -> Bool {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        guard let passed = try channel.readInbound(as: ByteBuffer.self) else { return false }
        return Array(passed.readableBytesView) == bytes
    }

    static func reply(_ id: String) throws -> [UInt8] {
        try Caresync_V1_Envelope.completionReply(
            to: id, revision: 7, superseded: false, state: .completed, rejection: nil, detail: nil).serializedBytes()
    }

    @Test func aReplyGoesToTheTaskUntilTheIntakeIsArmedThenIsAnsweredOnTheLoop() throws {
        #expect(try passesOn(Self.reply("before")))
        arm()
        #expect(try !passesOn(Self.reply("after")))
        #expect(delivered.ids.withLock { $0 } == ["after"])
    }

    @Test func everyOtherFrameGoesOnUntouched() throws {
        arm()
        let ping: [UInt8] = try Caresync_V1_Envelope.ping(nonce: 3).serializedBytes()
        // Starts as a reply and ends as a ping: the last field of a oneof wins.
        let replyThenPing = try Self.reply("shadowed") + ping
        // Starts as a reply and is cut short.
        let truncated = Array(try Self.reply("cut").dropLast(3))
        for bytes in [ping, replyThenPing, truncated, []] {
            #expect(try passesOn(bytes))
        }
        #expect(delivered.ids.withLock { $0 }.isEmpty)
    }
}
