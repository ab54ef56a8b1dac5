import FuzzSupport
import NIOCore
import SwiftProtobuf
import SyncProtocol

// Frame.decode on any payload:
// - bytes that are not an Envelope are refused with MALFORMED_FRAME, never a trap;
// - an Envelope that decodes is framed again by Frame.encode with the right length
//   prefix, and that frame decodes to an equal Envelope (unknown fields kept) whose
//   bytes are the same again: decode → encode → decode is stable.
//
// Input: one frame's payload, without its length prefix.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    let envelope: Caresync_V1_Envelope
    do {
        envelope = try Frame.decode(ByteBuffer(bytes: input.rest()))
    } catch {
        require(error.code == .malformedFrame && error.isFatal, "refused with \(error)")
        return 0
    }
    var frame: ByteBuffer
    do {
        frame = try Frame.encode(envelope)
    } catch {
        fuzzFailure("a decoded envelope does not encode: \(error)")
    }
    let length = frame.readInteger(endianness: .big, as: UInt32.self)
    require(length.map(Int.init) == frame.readableBytes, "length prefix \(String(describing: length)), payload \(frame.readableBytes)")
    let payload = Array(frame.readableBytesView)
    do {
        let again = try Frame.decode(frame)
        require(again == envelope, "not equal after decode → encode → decode:\n\(envelope)\n\(again)")
        let bytes: [UInt8] = try again.serializedBytes()
        require(bytes == payload, "encoding again gives other bytes")
    } catch {
        fuzzFailure("an encoded envelope does not decode again: \(error)")
    }
    return 0
}
