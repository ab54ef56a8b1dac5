/// Big-endian integers and length-prefixed bytes, for the standby copy's records.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    mutating func integer<T: FixedWidthInteger>(_ value: T) { bytes += Self.bytes(of: value) }

    /// A 4-byte length, then `data`.
    mutating func data(_ data: [UInt8]) {
        integer(UInt32(data.count))
        bytes += data
    }

    mutating func string(_ text: String) { data(Array(text.utf8)) }
}

/// Reads what a ``ByteWriter`` wrote; `nil` for anything that runs past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { return nil }
        defer { offset += size }
        return bytes[offset..<offset + size].reduce(T.zero) { $0 << 8 | T($1) }
    }

    mutating func data() -> [UInt8]? {
        guard let count = integer(UInt32.self).map(Int.init), bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func string() -> String? { data().flatMap { String(validating: $0, as: UTF8.self) } }
}
