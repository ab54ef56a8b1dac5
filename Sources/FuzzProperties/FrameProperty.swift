import NIOCore
import NIOEmbedded
import SyncProtocol

// FrameDecoder on a byte stream that arrives in pieces of arbitrary sizes, compared with
// a model of the framing (4-byte big-endian length, then the payload):
// - it emits exactly the model's payloads, in order, and none above the limit;
// - a length above the limit is refused with PAYLOAD_TOO_LARGE naming that length, in the
//   piece that completes its four bytes (before any payload byte is awaited);
// - a stream that ends inside a frame is refused with MALFORMED_FRAME, one that ends
//   between frames is not; every error is a ProtocolError.
//
// Input: one byte choosing the limit, one seeding the piece sizes, then the stream.

func checkFrame(_ bytes: [UInt8]) throws(PropertyBroken) {
    var input = FuzzInput(bytes)
    let selector = Int(input.byte())
    let limit = selector < smallLimits.count ? smallLimits[selector] : Frame.defaultMaximumBytes
    var pieces = PieceSizes(seed: input.byte())
    let stream = input.rest()
    let expected = Framing(stream, limit: limit)

    let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder(maximumBytes: limit)))
    var payloads: [[UInt8]] = []
    var error: (any Error)?
    var offset = 0
    while offset < stream.count, error == nil {
        let end = min(stream.count, offset + pieces.next())
        do {
            try channel.writeInbound(ByteBuffer(bytes: stream[offset..<end]))
        } catch let thrown {
            error = thrown
        }
        if error != nil {
            try require(expected.tooLarge != nil && (offset..<end).contains(expected.tooLarge!.at + 3),
                    "refused in the piece \(offset)..<\(end); the model says \(expected)")
        }
        payloads += received(channel)
        offset = end
    }
    if error == nil {
        do { _ = try channel.finish() } catch let thrown { error = thrown }
        payloads += received(channel)
    } else {
        _ = try? channel.finish()
    }

    try require(payloads == expected.payloads, "payloads \(payloads.map(\.count)) but the model says \(expected)")
    try require(payloads.allSatisfy { $0.count <= limit }, "a payload above the limit \(limit)")
    switch (error, expected.tooLarge) {
    case (nil, nil):
        try require(expected.leftOver == 0, "a stream ending inside a frame was accepted: \(expected)")
    case (let error as ProtocolError, let tooLarge?):
        try require(error == .frameTooLarge(announced: tooLarge.length, limit: limit), "\(error) but the model says \(expected)")
    case (let error as ProtocolError, nil):
        try require(expected.leftOver > 0 && error.code == .malformedFrame, "\(error) but the model says \(expected)")
    case (let error?, _):
        throw fuzzFailure("not a ProtocolError: \(error)")
    case (nil, _?):
        throw fuzzFailure("an announced length above the limit was not refused: \(expected)")
    }
}

/// Limits besides the default, for short inputs to reach: input byte N picks the Nth.
private let smallLimits = [0, 1, 2, 3, 4, 5, 16, 255, 256, 65_535, 65_536]

/// The payloads a stream holds under `limit`, and how it ends.
private struct Framing: CustomStringConvertible {
    var payloads: [[UInt8]] = []
    /// The first length prefix above the limit: where it starts and what it announces.
    var tooLarge: (at: Int, length: Int)?
    /// Bytes after the last whole frame, when no length was refused.
    var leftOver = 0

    init(_ stream: [UInt8], limit: Int) {
        var offset = 0
        while stream.count - offset >= 4 {
            let length = stream[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if length > limit {
                tooLarge = (offset, length)
                return
            }
            guard stream.count - offset - 4 >= length else { break }
            payloads.append(Array(stream[offset + 4..<offset + 4 + length]))
            offset += 4 + length
        }
        leftOver = stream.count - offset
    }

    var description: String {
        "\(payloads.count) payloads \(payloads.map(\.count)), "
            + (tooLarge.map { "length \($0.length) refused at byte \($0.at)" } ?? "\(leftOver) bytes left over")
    }
}

/// Piece sizes from 1 to 64 bytes, from a small generator seeded by the input; seed 0
/// delivers the stream in one piece.
private struct PieceSizes {
    private var state: UInt32

    init(seed: UInt8) {
        state = UInt32(seed)
    }

    mutating func next() -> Int {
        guard state != 0 else { return .max / 2 }
        state = state &* 1_664_525 &+ 1_013_904_223
        return Int(state >> 26) + 1
    }
}

private func received(_ channel: EmbeddedChannel) -> [[UInt8]] {
    var payloads: [[UInt8]] = []
    while let buffer = try? channel.readInbound(as: ByteBuffer.self) {
        payloads.append(Array(buffer.readableBytesView))
    }
    return payloads
}
