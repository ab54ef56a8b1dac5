import NIOCore
import SwiftProtobuf

/// Framing: a 4-byte big-endian length, then that many bytes of one serialized Envelope.
public enum Frame {
    /// The default largest frame: 1 MiB.
    public static let defaultMaximumBytes = 1 << 20

    /// The length prefix and the envelope's bytes.
    public static func encode(_ envelope: Caresync_V1_Envelope, allocator: ByteBufferAllocator = ByteBufferAllocator()) throws -> ByteBuffer {
        let payload: [UInt8] = try envelope.serializedBytes()
        var buffer = allocator.buffer(capacity: 4 + payload.count)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        return buffer
    }

    /// Decodes one frame's payload (without its length prefix).
    public static func decode(_ payload: ByteBuffer) throws(ProtocolError) -> Caresync_V1_Envelope {
        do {
            return try Caresync_V1_Envelope(serializedBytes: Array(payload.readableBytesView))
        } catch {
            throw .malformed("not a protobuf Envelope (\(error))")
        }
    }
}

/// Splits a byte stream into frame payloads. A length above the limit is refused as
/// soon as its four bytes arrive, before anything is allocated for the payload.
public struct FrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    public let maximumBytes: Int

    public init(maximumBytes: Int = Frame.defaultMaximumBytes) {
        self.maximumBytes = maximumBytes
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        guard length <= maximumBytes else {
            throw ProtocolError.frameTooLarge(announced: Int(length), limit: maximumBytes)
        }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: Int(length))!))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            throw ProtocolError.malformed("the connection ended inside a frame (\(buffer.readableBytes) bytes left over)")
        }
        return .needMoreData
    }
}
