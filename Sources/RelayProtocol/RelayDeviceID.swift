import Crypto
import Foundation

/// An identity on a relay: the SHA-256 of a certificate, as Syncthing's device ids are, written
/// as Syncthing writes them: base32, a Luhn mod 32 check character after each of the four
/// thirteen-character groups, in eight groups of seven joined by dashes
/// (`T2QMTFE-UGB7CB2-…-BFUXZAX`). A relay names itself so in its `relay://` URI (`?id=`).
public struct RelayDeviceID: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the digest.
    public let bytes: [UInt8]

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The id of the certificate whose DER encoding is `der`.
    public init(certificateDER der: some DataProtocol) {
        bytes = Array(SHA256.hash(data: Data(der)))
    }

    /// The id whose digest is `bytes` (exactly 32 of them).
    public init(bytes: [UInt8]) throws(RelayDeviceIDError) {
        guard bytes.count == 32 else { throw .wrongLength(bytes.count) }
        self.bytes = bytes
    }

    /// Reads an id as Syncthing writes it: either case, with or without dashes and spaces,
    /// and with the characters people mistype for base32's (0 for O, 1 for I, 8 for B) read as
    /// Syncthing reads them. Every check character must hold.
    public init(_ text: String) throws(RelayDeviceIDError) {
        let typed = text.uppercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }.map { character -> UInt8 in
            switch character {
            case UInt8(ascii: "0"): UInt8(ascii: "O")
            case UInt8(ascii: "1"): UInt8(ascii: "I")
            case UInt8(ascii: "8"): UInt8(ascii: "B")
            default: character
            }
        }
        guard typed.count == 56 else { throw .wrongLength(typed.count) }
        var digits: [UInt8] = []
        for group in 0..<4 {
            let start = group * 14
            let body = Array(typed[start..<start + 13])
            guard body.allSatisfy(Self.alphabet.contains), Self.alphabet.contains(typed[start + 13]) else {
                throw .notBase32(text)
            }
            guard Self.check(body) == typed[start + 13] else { throw .checkFailed(group: group + 1) }
            digits += body
        }
        bytes = try Self.decode(digits)
    }

    public var description: String {
        let digits = Self.encode(bytes)
        var checked: [UInt8] = []
        for group in 0..<4 {
            let body = Array(digits[group * 13..<group * 13 + 13])
            checked += body + [Self.check(body)]
        }
        let groups = stride(from: 0, to: 56, by: 7).map { String(decoding: checked[$0..<$0 + 7], as: UTF8.self) }
        return groups.joined(separator: "-")
    }

    /// The check character of `group`: Luhn mod 32 over the digits' values, doubling every
    /// second one counted from the group's first (as Syncthing counts, so that ids match).
    static func check(_ group: [UInt8]) -> UInt8 {
        var factor = 1, sum = 0
        for character in group {
            let addend = factor * alphabet.firstIndex(of: character)!
            factor = factor == 2 ? 1 : 2
            sum += addend / 32 + addend % 32
        }
        return alphabet[(32 - sum % 32) % 32]
    }

    /// RFC 4648 base32 of 32 bytes, without its padding: 52 digits.
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var digits: [UInt8] = [], buffer = 0, bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                digits.append(alphabet[(buffer >> bits) & 31])
            }
        }
        if bits > 0 { digits.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return digits
    }

    /// The 32 bytes of 52 base32 digits; the four bits left over must be zero.
    static func decode(_ digits: [UInt8]) throws(RelayDeviceIDError) -> [UInt8] {
        var bytes: [UInt8] = [], buffer = 0, bits = 0
        for digit in digits {
            buffer = (buffer << 5 | alphabet.firstIndex(of: digit)!) & 0x1FFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        guard bytes.count == 32, buffer & ((1 << bits) - 1) == 0 else { throw .notBase32(String(decoding: digits, as: UTF8.self)) }
        return bytes
    }
}

/// Why text or bytes are not a relay device id.
public enum RelayDeviceIDError: Error, Equatable, CustomStringConvertible {
    /// Not 56 characters once dashes and spaces are removed (or not 32 bytes).
    case wrongLength(Int)
    /// A character outside base32's alphabet, or bits where none can be.
    case notBase32(String)
    /// The check character of this group (1 to 4) does not match: a character mistyped.
    case checkFailed(group: Int)

    public var description: String {
        switch self {
        case .wrongLength(let count): "a relay id has 56 characters besides its dashes (or 32 bytes), not \(count)"
        case .notBase32(let text): "\"\(text)\" is not a relay id: only A to Z and 2 to 7 are base32"
        case .checkFailed(let group): "the relay id's group \(group) does not check: a character in it is mistyped"
        }
    }
}
