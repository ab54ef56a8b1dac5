/// XDR's encoding (RFC 4506) of what relay messages hold: 32-bit big-endian integers, and
/// variable-length opaque data after its length, padded with zeros to four bytes.
struct XDRWriter {
    private(set) var bytes: [UInt8] = []

    mutating func uint(_ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    mutating func int(_ value: Int32) { uint(UInt32(bitPattern: value)) }

    mutating func opaque(_ data: [UInt8]) {
        uint(UInt32(data.count))
        bytes += data + Array(repeating: 0, count: (4 - data.count % 4) % 4)
    }
}

/// Reads what ``XDRWriter`` writes, refusing what is short, too long or badly padded.
struct XDRReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func uint() throws(RelayProtocolError) -> UInt32 {
        guard remaining >= 4 else { throw .malformed("it ends inside a 4-byte integer") }
        defer { offset += 4 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int() throws(RelayProtocolError) -> Int32 { Int32(bitPattern: try uint()) }

    mutating func opaque(atMost limit: Int) throws(RelayProtocolError) -> [UInt8] {
        let count = Int(try uint())
        guard count <= limit else { throw .malformed("\(count) bytes where at most \(limit) may be") }
        let padded = count + (4 - count % 4) % 4
        guard remaining >= padded else { throw .malformed("it ends inside \(count) bytes of data") }
        defer { offset += padded }
        guard bytes[offset + count..<offset + padded].allSatisfy({ $0 == 0 }) else { throw .malformed("padding that is not zeros") }
        return Array(bytes[offset..<offset + count])
    }

    mutating func deviceID() throws(RelayProtocolError) -> RelayDeviceID {
        let bytes = try opaque(atMost: RelayMessage.maximumOpaque)
        do {
            return try RelayDeviceID(bytes: bytes)
        } catch {
            throw .malformed("a device id of \(bytes.count) bytes, not 32")
        }
    }
}
