/// What every fuzz target shares: the input libFuzzer hands it, split into parts, and a
/// stop that names the property an input broke.
///
/// A target is one function exported to libFuzzer:
///
///     @_cdecl("LLVMFuzzerTestOneInput")
///     public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
///         var input = FuzzInput(data, count)
///         …
///         return 0
///     }
///
/// A broken property calls ``fuzzFailure(_:file:line:)``, which aborts: libFuzzer saves the
/// input as a crash, as it does for a trap or a sanitizer's report.

/// The bytes of one input, consumed from the front.
public struct FuzzInput {
    private var remaining: ArraySlice<UInt8>

    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        remaining = data.map { ArraySlice(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    public init(_ bytes: [UInt8]) {
        remaining = bytes[...]
    }

    public var isEmpty: Bool { remaining.isEmpty }

    /// The next byte, or 0 once the input is used up.
    public mutating func byte() -> UInt8 {
        remaining.popFirst() ?? 0
    }

    /// The next `count` bytes, fewer if the input ends first.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = remaining.prefix(count)
        remaining = remaining.dropFirst(taken.count)
        return Array(taken)
    }

    /// A part of up to 255 bytes: one length byte, then the part.
    public mutating func part() -> [UInt8] {
        bytes(Int(byte()))
    }

    /// A part as text, invalid UTF-8 repaired as Swift's `String(decoding:as:)` does.
    public mutating func text() -> String {
        String(decoding: part(), as: UTF8.self)
    }

    /// Everything not yet consumed.
    public mutating func rest() -> [UInt8] {
        defer { remaining = [] }
        return Array(remaining)
    }
}

/// Stops the run: the input broke a property. libFuzzer keeps it as a crash.
public func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("property broken: \(message())", file: file, line: line)
}

/// Stops the run unless `condition` holds.
public func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}
