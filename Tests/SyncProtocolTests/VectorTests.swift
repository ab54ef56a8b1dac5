import Foundation
import NIOCore
import NIOEmbedded
import SwiftProtobuf
import StrictJSON
import SyncProtocol
import Testing

/// Protocol/vectors/frames.json, encoded by an independent implementation (Python's).
struct VectorTests {
    struct Vectors: Decodable {
        struct Valid: Decodable {
            var name: String
            var hex: String
            var message: JSONValue
        }

        struct Invalid: Decodable {
            var name: String
            var hex: String
            var error: String
        }

        var valid: [Valid]
        var invalid: [Invalid]
    }

    static let vectors: Vectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Protocol/vectors/frames.json")
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()

    @Test(arguments: vectors.valid.map(\.name))
    func validFramesDecodeAndReencodeByteForByte(name: String) throws {
        let vector = try #require(Self.vectors.valid.first { $0.name == name })
        let bytes = try #require(Array(hex: vector.hex))
        let expected = try Caresync_V1_Envelope(jsonUTF8Data: JSONEncoder().encode(vector.message))

        let frames = try Self.split(bytes)
        #expect(frames.count == 1)
        let decoded = try Frame.decode(try #require(frames.first))
        #expect(decoded == expected)
        #expect(Array(try Frame.encode(expected).readableBytesView) == bytes)
    }

    @Test(arguments: vectors.invalid.map(\.name))
    func invalidFramesGetTheirErrorCode(name: String) throws {
        let vector = try #require(Self.vectors.invalid.first { $0.name == name })
        let bytes = try #require(Array(hex: vector.hex))
        let error = try #require(throws: ProtocolError.self) {
            for frame in try Self.split(bytes) { _ = try Frame.decode(frame) }
        }
        #expect("ERROR_CODE_\(error.code)" == vector.error)
        #expect(error.isFatal)
    }

    @Test func anOversizedLengthIsRefusedBeforeItsPayloadArrives() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder(maximumBytes: 64)))
        var header = ByteBuffer()
        header.writeInteger(UInt32(65))
        #expect(throws: ProtocolError.frameTooLarge(announced: 65, limit: 64)) { try channel.writeInbound(header) }
    }

    @Test func framesSplitAcrossReadsAndJoinedInOneRead() throws {
        let frames = try Self.vectors.valid.prefix(3).flatMap { try #require(Array(hex: $0.hex)) }
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder()))
        // One byte at a time, then everything at once: the same three frames either way.
        for byte in frames { try channel.writeInbound(ByteBuffer(bytes: [byte])) }
        try channel.writeInbound(ByteBuffer(bytes: frames))
        var names: [String] = []
        while let payload = try channel.readInbound(as: ByteBuffer.self) {
            names.append(String(describing: try Frame.decode(payload).body).prefix(12).description)
        }
        #expect(names.count == 6)
        #expect(Array(names.prefix(3)) == Array(names.suffix(3)))
    }

    /// Runs bytes through the real frame decoder, as a connection would, then ends the stream.
    static func split(_ bytes: [UInt8]) throws -> [ByteBuffer] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder()))
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        var frames: [ByteBuffer] = []
        while let frame = try channel.readInbound(as: ByteBuffer.self) { frames.append(frame) }
        _ = try channel.finish()
        return frames
    }
}

extension Array where Element == UInt8 {
    init?(hex: String) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }
}
