import NIOCore
import RelayProtocol

/// Reads relay messages off a protocol-mode connection; bytes no relay sends fail the
/// connection with their ``RelayProtocolError``.
struct RelayMessageDecoder: ByteToMessageDecoder {
    typealias InboundOut = RelayMessage

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // No more than one message's worth is looked at: a peer sending much cannot make each
        // look copy all it sent.
        let head = buffer.readableBytesView.prefix(12 + RelayMessage.maximumLength)
        guard let (message, length) = try RelayMessage.decode(head) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: length)
        context.fireChannelRead(wrapInboundOut(message))
        return .continue
    }
}

/// Writes relay messages with their header.
struct RelayMessageEncoder: MessageToByteEncoder {
    typealias OutboundIn = RelayMessage

    func encode(data: RelayMessage, out: inout ByteBuffer) throws {
        out.writeBytes(data.encoded)
    }
}
