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

func checkEnvelope(_ bytes: [UInt8]) throws(PropertyBroken) {
    var input = FuzzInput(bytes)
    let envelope: Caresync_V1_Envelope
    do {
        envelope = try Frame.decode(ByteBuffer(bytes: input.rest()))
    } catch {
        try require(error.code == .malformedFrame && error.isFatal, "refused with \(error)")
        return
    }
    var frame: ByteBuffer
    do {
        frame = try Frame.encode(envelope)
    } catch {
        throw fuzzFailure("a decoded envelope does not encode: \(error)")
    }
    let length = frame.readInteger(endianness: .big, as: UInt32.self)
    try require(length.map(Int.init) == frame.readableBytes, "length prefix \(String(describing: length)), payload \(frame.readableBytes)")
    let payload = Array(frame.readableBytesView)
    let again: Caresync_V1_Envelope
    let bytes: [UInt8]
    do {
        again = try Frame.decode(frame)
        bytes = try again.serializedBytes()
    } catch {
        throw fuzzFailure("an encoded envelope does not decode again: \(error)")
    }
    try require(again == envelope, "not equal after decode → encode → decode:\n\(envelope)\n\(again)")
    try require(bytes == payload, "encoding again gives other bytes")
}
