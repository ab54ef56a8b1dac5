import NIOCore
import NIOHTTPTypes

/// Notices that a browser has gone: it closed its side of the connection (the server allows
/// half-closed connections, so the channel itself stays open until a write fails, which for
/// an idle live stream is two heartbeats later), or the channel closed.
final class ClientGone: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// Completes once the client is gone; made when the handler joins its channel.
    private var gone: EventLoopPromise<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        gone = context.eventLoop.makePromise()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { gone?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        gone?.succeed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        gone?.succeed()
    }

    /// When the client on `channel` is gone: as this handler in its pipeline sees it, else
    /// when the channel closes.
    static func future(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit {
            (try? channel.pipeline.syncOperations.handler(type: ClientGone.self))?.gone?.futureResult ?? channel.closeFuture
        }
    }
}
