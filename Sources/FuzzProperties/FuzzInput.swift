/// The bytes of one input, consumed from the front.
struct FuzzInput {
    private var remaining: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        remaining = bytes[...]
    }

    /// The next byte, or 0 once the input is used up.
    mutating func byte() -> UInt8 {
        remaining.popFirst() ?? 0
    }

    /// The next `count` bytes, fewer if the input ends first.
    mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = remaining.prefix(count)
        remaining = remaining.dropFirst(taken.count)
        return Array(taken)
    }

    /// A part of up to 255 bytes: one length byte, then the part.
    mutating func part() -> [UInt8] {
        bytes(Int(byte()))
    }

    /// A part as text, invalid UTF-8 repaired as Swift's `String(decoding:as:)` does.
    mutating func text() -> String {
        String(decoding: part(), as: UTF8.self)
    }

    /// Everything not yet consumed.
    mutating func rest() -> [UInt8] {
        defer { remaining = [] }
        return Array(remaining)
    }
}
