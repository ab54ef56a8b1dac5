import Foundation
import NIOCore
import SyncProtocol
import Waiting

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
/// The wait runs on ``ConnectionDeadlines/clock`` rather than the event loop's, so a test
/// reaches a deadline by moving its clock, and a busy machine never reaches one midway.
final class DeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadlines: ConnectionDeadlines
    private var sawFrame = false
    private var lastFrame = Date.distantPast
    private var check: Task<Void, Never>?
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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sawFrame = true
        lastFrame = deadlines.clock.now
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
        check?.cancel()
    }

    private func wait(_ context: ChannelHandlerContext, for delay: Duration) {
        waits += 1
        let wait = waits
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let (clock, eventLoop) = (deadlines.clock, context.eventLoop)
        check = Task {
            guard (try? await clock.sleep(delay)) != nil else { return }
            eventLoop.execute {
                let (handler, context) = loopBound.value
                if handler.waits == wait { handler.expire(context) }
            }
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
