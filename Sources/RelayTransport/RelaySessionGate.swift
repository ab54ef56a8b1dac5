import NIOCore
import RelayProtocol

/// The first handler of a session-mode connection: reads the relay's answer to the join,
/// then holds what follows it (the peer's first bytes may come in the same read) until
/// ``open()``, when what speaks over the pipe has been installed after it; from then on it
/// passes everything on. An end of the connection before then is held too, and passed on
/// after those bytes.
final class RelaySessionGate: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Waiting for the answer, with the bytes of it read so far.
        case joining(ByteBuffer?)
        /// Joined; what came after the answer, and whether the connection has ended.
        case joined(ByteBuffer?, ended: Bool)
        case open
    }

    let relay: RelayAddress
    /// Succeeds once the relay says the session is joined; fails with its refusal.
    nonisolated(unsafe) private(set) var answer: EventLoopPromise<Void>!
    // Touched only on the channel's event loop.
    nonisolated(unsafe) private var state = State.joining(nil)
    nonisolated(unsafe) private var context: ChannelHandlerContext?

    init(relay: RelayAddress) {
        self.relay = relay
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        answer = context.eventLoop.makePromise()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        answer.fail(RelayError.closed(relay: relay, waitingFor: "an answer to joining the session"))
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        switch state {
        case .open:
            context.fireChannelRead(data)
        case .joined(var held, let ended):
            held.setOrWriteImmutableBuffer(bytes)
            state = .joined(held, ended: ended)
        case .joining(var read):
            read.setOrWriteBuffer(&bytes)
            guard var read else { return }
            do {
                guard let (message, length) = try RelayMessage.decode(read.readableBytesView.prefix(12 + RelayMessage.maximumLength)) else {
                    state = .joining(read)
                    return
                }
                read.moveReaderIndex(forwardBy: length)
                state = .joined(read.readableBytes > 0 ? read : nil, ended: false)
                switch message {
                case .response(let response) where response.code == RelayResponse.success.code: answer.succeed()
                case .response(let response): answer.fail(RelayError.refused(relay: relay, response))
                case .relayFull: answer.fail(RelayError.full(relay: relay))
                default: answer.fail(RelayError.unexpected(relay: relay, message))
                }
            } catch {
                answer.fail(error)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch state {
        case .open: context.fireChannelInactive()
        case .joined(let held, _): state = .joined(held, ended: true)
        case .joining: answer.fail(RelayError.closed(relay: relay, waitingFor: "an answer to joining the session"))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .open = state { context.fireErrorCaught(error) } else { answer.fail(error) }
    }

    /// Passes on what was held, then everything that follows. On the channel's event loop.
    func open() {
        guard let context, case .joined(let held, let ended) = state else { return }
        state = .open
        if let held {
            context.fireChannelRead(wrapInboundOut(held))
            context.fireChannelReadComplete()
        }
        if ended { context.fireChannelInactive() }
    }
}
