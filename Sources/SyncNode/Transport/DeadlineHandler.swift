import NIOCore
import SyncProtocol

/// How long a connection may stay silent.
struct ConnectionDeadlines: Sendable {
    /// The first frame (Hello, or HelloAck for a companion) must arrive within this time,
    /// however many bytes trickle in before it.
    var handshake: TimeAmount
    /// The connection closes when no frame has arrived for this long.
    var idle: TimeAmount
}

/// Closes a connection whose peer misses a deadline, after telling it why. Counts whole
/// frames, not bytes, so a peer that trickles bytes cannot keep a connection open.
///
/// It runs on the event loop's clock, which tests advance with `EmbeddedEventLoop`.
final class DeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadlines: ConnectionDeadlines
    private var sawFrame = false
    private var lastFrame = NIODeadline.uptimeNanoseconds(0)
    private var check: Scheduled<Void>?

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
        lastFrame = context.eventLoop.now
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard check == nil else { return }
        lastFrame = context.eventLoop.now
        schedule(context, after: deadlines.handshake)
    }

    private func schedule(_ context: ChannelHandlerContext, after delay: TimeAmount) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.expire(context)
        }
    }

    private func expire(_ context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let now = context.eventLoop.now
        if !sawFrame {
            close(context, ProtocolError(.handshakeTimeout, "no handshake within \(Self.seconds(deadlines.handshake))"))
        } else if now - lastFrame >= deadlines.idle {
            close(context, ProtocolError(.idleTimeout, "nothing received for \(Self.seconds(deadlines.idle))"))
        } else {
            schedule(context, after: deadlines.idle - (now - lastFrame))
        }
    }

    private func close(_ context: ChannelHandlerContext, _ error: ProtocolError) {
        if let frame = try? Frame.encode(error.envelope()) {
            context.writeAndFlush(NIOAny(frame), promise: nil)
        }
        context.closeAfterWrites()
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        "\(Double(amount.nanoseconds) / 1e9) s"
    }
}
