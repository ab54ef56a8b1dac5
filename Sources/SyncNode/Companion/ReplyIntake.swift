import NIOCore
import SyncProtocol

/// Answers completions on the connection's event loop: a CompletionReply goes from the
/// frame straight to the completion waiting for it, rather than through the connection's
/// receiving task and then its sender (two task switches fewer on every round trip, as the
/// primary's ``CompletionIntake`` does for the completion). Every other frame goes on to
/// the task untouched, and so does every frame until the session arms the intake, after
/// the handshake. What the two intakes buy together is measured at ``CompletionIntake``.
///
/// Like the session, it reads frames: the reply is handed on as SyncProtocol's
/// ``CompletionReply``, a domain value.
final class ReplyIntake: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    /// Takes a reply, on the event loop: it must return quickly.
    typealias Deliver = @Sendable (CompletionReply) -> Void

    /// How the session, on any thread, arms the intake.
    struct Control: Sendable {
        fileprivate let intake: NIOLoopBound<ReplyIntake>

        /// Replies read from now on go to `deliver`.
        func arm(_ deliver: @escaping Deliver) {
            let intake = self.intake
            intake.eventLoop.execute { intake.value.deliver = deliver }
        }
    }

    /// The first byte of an envelope whose first field is `completion_reply` (field 5,
    /// length-delimited): the only frames decoded here.
    static let replyTag: UInt8 = 5 << 3 | 2

    private var deliver: Deliver?

    /// The intake's control; on the channel's event loop.
    func control(on eventLoop: any EventLoop) -> Control {
        Control(intake: NIOLoopBound(self, eventLoop: eventLoop))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if let deliver, frame.getInteger(at: frame.readerIndex, as: UInt8.self) == Self.replyTag,
           let envelope = try? Frame.decode(frame), case .completionReply(let reply) = envelope.body {
            deliver(CompletionReply(wire: reply))
        } else {
            // Anything else, a malformed frame included, is the task's to handle.
            context.fireChannelRead(data)
        }
    }
}
