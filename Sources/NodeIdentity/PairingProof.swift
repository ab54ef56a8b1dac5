import _CryptoExtras
import Crypto
import Foundation

/// What each side of a pairing proves: that it knows the code, for this exact pair of
/// certificates. A device in the middle terminates TLS with its own certificate on each
/// side, so the two sides would bind different fingerprints and neither proof would check.
///
/// K = scrypt(code, salt: "caresync-pair-v1" ‖ companion fingerprint ‖ primary fingerprint,
/// N = 2^14, r = 8, p = 1, 32 bytes); the companion sends HMAC-SHA256(K, "caresync-pair-v1
/// companion"), the primary answers HMAC-SHA256(K, "caresync-pair-v1 primary"). scrypt
/// makes each guess at a 40-bit code cost about 100 ms and 16 MiB, so an attacker who
/// captures one proof cannot search the codes before they expire.
public struct PairingProof {
    static let context = "caresync-pair-v1"
    private let key: SymmetricKey

    /// The key for `code` binding the two fingerprints (64 hex digits each).
    public init(code: PairingCode, companionFingerprint: String, primaryFingerprint: String) throws(PairingProofError) {
        guard let companion = Self.bytes(hex: companionFingerprint), let primary = Self.bytes(hex: primaryFingerprint) else {
            throw .badFingerprint
        }
        do {
            key = try KDF.Scrypt.deriveKey(
                from: Array(code.characters.utf8), salt: Array(Self.context.utf8) + companion + primary,
                outputByteCount: 32, rounds: 1 << 14, blockSize: 8, parallelism: 1)
        } catch {
            throw .derivationFailed(String(describing: error))
        }
    }

    /// The companion's proof.
    public var companion: Data { mac("companion") }
    /// The primary's proof.
    public var primary: Data { mac("primary") }

    /// Whether `proof` is the companion's, compared in constant time.
    public func isCompanion(_ proof: Data) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(proof, authenticating: label("companion"), using: key)
    }

    /// Whether `proof` is the primary's, compared in constant time.
    public func isPrimary(_ proof: Data) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(proof, authenticating: label("primary"), using: key)
    }

    private func label(_ side: String) -> Data { Data("\(Self.context) \(side)".utf8) }

    private func mac(_ side: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: label(side), using: key))
    }

    /// The 32 bytes of a fingerprint: exactly 64 hexadecimal digits, either case, nothing else
    /// (no sign, which `UInt8(_:radix:)` would take).
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = value(ofHexDigit: digits[index]), let low = value(ofHexDigit: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(ofHexDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

// An immutable key: safe to hand from the thread that derived it to another.
extension PairingProof: @unchecked Sendable {}

/// Why a pairing proof cannot be made.
public enum PairingProofError: Error, Hashable, Sendable, CustomStringConvertible {
    case badFingerprint
    case derivationFailed(String)

    public var description: String {
        switch self {
        case .badFingerprint: "a fingerprint must be 64 hexadecimal digits"
        case .derivationFailed(let reason): "cannot derive the pairing key: \(reason)"
        }
    }
}
