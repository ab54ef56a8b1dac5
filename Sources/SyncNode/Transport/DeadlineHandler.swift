import Foundation
import NIOCore
import SyncProtocol
import Clocks

/// How long a connection may stay silent, and the clock that measures it.
struct ConnectionDeadlines: Sendable {
    /// The first frame (Hello, or HelloAck for a companion) must arrive within this time,
    /// however many bytes trickle in before it.
    var handshake: Duration
    /// The connection closes when no frame has arrived for this long.
    var idle: Duration
    /// What the deadlines wait on: the machine's clock, or one a test moves.
    var clock: any WallClock
}

/// Closes a connection whose peer misses a deadline, after telling it why. Counts whole
/// frames, not bytes, so a peer that trickles bytes cannot keep a connection open.
///
/// The wait runs on ``ConnectionDeadlines/clock``, so a test reaches a deadline by moving its
/// clock; on the machine's clock it is the event loop's own timer instead.
final class DeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadlines: ConnectionDeadlines
    private var sawFrame = false
    private var lastFrame = Date.distantPast
    /// Cancels the wait in progress.
    private var check: (@Sendable () -> Void)?
    /// When the wait in progress ends.
    private var due = Date.distantFuture
    /// Counts the waits begun, so that the end of a cancelled one is ignored.
    private var waits = 0

    init(_ deadlines: ConnectionDeadlines) {
        self.deadlines = deadlines
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    /// A frame puts the deadline off to a whole idle period from now, once the wait in
    /// progress has less than a third of one left: a peer that keeps to its pings is never
    /// woken for (the idle figure of `caresync-bench idle` with 10 companions), and a burst
    /// of frames moves the deadline once, not per frame.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = deadlines.clock.now
        lastFrame = now
        if !sawFrame || due.timeIntervalSince(now) < deadlines.idle.inSeconds / 3 {
            wait(context, for: deadlines.idle)
        }
        sawFrame = true
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard check == nil else { return }
        lastFrame = deadlines.clock.now
        wait(context, for: deadlines.handshake)
    }

    private func stop() {
        waits += 1
        check?()
    }

    private func wait(_ context: ChannelHandlerContext, for delay: Duration) {
        check?()
        waits += 1
        let wait = waits
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let (clock, eventLoop) = (deadlines.clock, context.eventLoop)
        due = clock.now.addingTimeInterval(delay.inSeconds)
        let reached: @Sendable () -> Void = {
            let (handler, context) = loopBound.value
            if handler.waits == wait { handler.expire(context) }
        }
        if clock.isTheMachines {
            // A task's sleep wakes the cooperative pool, which on an idle primary first starts
            // a thread: the event loop's timer keeps the idle figure of `caresync-bench idle`
            // with 10 companions under 2 wake-ups a second.
            let scheduled = eventLoop.scheduleTask(in: TimeAmount(delay)) { reached() }
            check = { scheduled.cancel() }
        } else {
            let task = Task {
                guard (try? await clock.sleep(delay)) != nil else { return }
                eventLoop.execute(reached)
            }
            check = { task.cancel() }
        }
    }

    private func expire(_ context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let silence = Duration.seconds(deadlines.clock.now.timeIntervalSince(lastFrame))
        if !sawFrame {
            close(context, ProtocolError(.handshakeTimeout, "no handshake within \(Self.seconds(deadlines.handshake))"))
        } else if silence >= deadlines.idle {
            close(context, ProtocolError(.idleTimeout, "nothing received for \(Self.seconds(deadlines.idle))"))
        } else {
            wait(context, for: deadlines.idle - silence)
        }
    }

    private func close(_ context: ChannelHandlerContext, _ error: ProtocolError) {
        if let frame = try? Frame.encode(error.envelope()) {
            context.writeAndFlush(NIOAny(frame), promise: nil)
        }
        context.closeAfterWrites()
    }

    private static func seconds(_ amount: Duration) -> String {
        "\(amount.inSeconds) s"
    }
}
