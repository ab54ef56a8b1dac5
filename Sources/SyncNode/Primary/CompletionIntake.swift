import NIOCore
import SyncProtocol

/// An edge of SyncNode, where frames are read and written: it decodes each frame, hands a
/// completion to the ``CompletionJudge`` as a ``CompletionMessage`` and writes the
/// ``CompletionJudgement`` it gets back as a frame, so that the wire types stay here.
///
/// Answers a connection's completions on its event loop: from the frame straight to the
/// store's group commit, and the reply written when the commit hands it back, with no task
/// in between; and its pings, with a pong at once. Every other frame goes on to the
/// connection's task (``PrimaryConnection``).
/// Either way one frame at a time, in order: the next is handled only once the current one
/// is answered (protocol section 8); reading stops while ``framesQueued`` frames wait.
///
/// Until the connection's task arms it (after the handshake and the device's checks) it
/// judges nothing, so completions before Hello go to the task, which refuses them.
///
/// With ``ReplyIntake`` it buys (A/B, `caresync-bench sync --security tls`, release, four runs
/// each), at 100 companions, a round trip of 0.97 ms at p50 and 2,208 completions a second,
/// against 1.44 ms and 1,777 with every frame through the connection's task.
final class CompletionIntake: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How the connection's task, on any thread, tells the intake it may go on.
    struct Control: Sendable {
        fileprivate let intake: NIOLoopBound<CompletionIntake>

        /// The frame handed to the task has been answered; with `judge`, completions are
        /// answered here from now on.
        func proceed(judging judge: CompletionJudge? = nil) {
            let intake = self.intake
            intake.eventLoop.execute { intake.value.proceed(judge) }
        }
    }

    /// The most frames read and not yet handled before reading stops.
    static let framesQueued = 16

    private var waiting = CircularBuffer<ByteBuffer>()
    /// A frame is being handled: with the task, or at the store.
    private var busy = false
    /// Inside ``next(_:)``: an answer given at once does not start it again.
    private var dispatching = false
    private var readHeld = false
    private var judge: CompletionJudge?
    private var context: ChannelHandlerContext?

    /// The intake's control; on the channel's event loop.
    func control(on eventLoop: any EventLoop) -> Control {
        Control(intake: NIOLoopBound(self, eventLoop: eventLoop))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        waiting.append(unwrapInboundIn(data))
        next(context)
    }

    func read(context: ChannelHandlerContext) {
        if waiting.count >= Self.framesQueued {
            readHeld = true
        } else {
            context.read()
        }
    }

    /// Handles the oldest waiting frame if none is being handled.
    private func next(_ context: ChannelHandlerContext) {
        dispatching = true
        defer { dispatching = false }
        while !busy, let frame = waiting.popFirst() {
            busy = true
            let envelope = judge == nil ? nil : try? Frame.decode(frame)
            if let judge, case .completion(let completion) = envelope?.body {
                let intake = NIOLoopBound(self, eventLoop: context.eventLoop)
                judge.judge(CompletionMessage(wire: completion), hop: { intake.eventLoop.execute($0) }) { reply in intake.value.answered(reply) }
            } else if judge != nil, case .ping(let ping) = envelope?.body {
                // A keepalive wakes no task: an idle primary with ten watches answers each
                // ping on the thread that read it (`caresync-bench idle`).
                if let pong = try? Frame.encode(.pong(nonce: ping.nonce)) { context.writeAndFlush(wrapOutboundOut(pong), promise: nil) }
                busy = false
            } else {
                // The async channel hands on what it has read at a read's end: this frame
                // may come after the read that brought it has ended.
                context.fireChannelRead(wrapInboundOut(frame))
                context.fireChannelReadComplete()
            }
        }
        if readHeld, waiting.count < Self.framesQueued {
            readHeld = false
            context.read()
        }
    }

    private func answered(_ judgement: CompletionJudgement) {
        guard let context else { return }
        if let frame = try? Frame.encode(.judgement(judgement)) { context.writeAndFlush(wrapOutboundOut(frame), promise: nil) }
        busy = false
        if !dispatching { next(context) }
    }

    private func proceed(_ judge: CompletionJudge?) {
        if let judge { self.judge = judge }
        busy = false
        if let context { next(context) }
    }
}
