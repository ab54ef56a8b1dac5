import NIOCore
import SwiftProtobuf

/// Framing: a 4-byte big-endian length, then that many bytes of one serialized Envelope.
public enum Frame {
    /// The default largest frame: 1 MiB.
    public static let defaultMaximumBytes = 1 << 20

    /// The length prefix and the envelope's bytes, serialized straight into the buffer.
    public static func encode(_ envelope: Caresync_V1_Envelope) throws -> ByteBuffer {
        var frame: FrameBytes = try envelope.serializedBytes()
        frame.buffer.moveReaderIndex(to: 0)
        return frame.buffer
    }

    /// Decodes one frame's payload (without its length prefix), reading it in place.
    public static func decode(_ payload: ByteBuffer) throws(ProtocolError) -> Caresync_V1_Envelope {
        do {
            return try Caresync_V1_Envelope(serializedBytes: FrameBytes(payload: payload))
        } catch {
            throw .malformed("not a protobuf Envelope (\(error))")
        }
    }
}

/// A frame's payload in a ByteBuffer, for SwiftProtobuf to read from and serialize into
/// without a copy through `[UInt8]`. One it makes has room for the length prefix, and the
/// prefix written, before its payload (``Frame/encode(_:)`` takes it in).
struct FrameBytes: SwiftProtobufContiguousBytes {
    /// The payload is the readable bytes.
    var buffer: ByteBuffer

    init(payload: ByteBuffer) {
        buffer = payload
    }

    init(repeating byte: UInt8, count: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: 4 + count)
        buffer.writeInteger(UInt32(count), endianness: .big)
        buffer.moveReaderIndex(forwardBy: 4)
        buffer.writeRepeatingByte(byte, count: count)
    }

    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        let bytes = Array(sequence)
        self.init(repeating: 0, count: bytes.count)
        buffer.setBytes(bytes, at: buffer.readerIndex)
    }

    var count: Int { buffer.readableBytes }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeReadableBytes(body)
    }

    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutableReadableBytes(body)
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
