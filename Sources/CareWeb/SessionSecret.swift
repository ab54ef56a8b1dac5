import CarePlanStore
import Crypto
import Foundation

/// The secret a session cookie holds: 32 random bytes, in hex. The store keeps only its
/// SHA-256; forms carry a token derived from it, which a page on another site cannot know.
struct SessionSecret: Sendable, Hashable {
    static let cookieName = "caresync_session"

    let text: String
    /// The token every form of this session carries (and `X-CSRF-Token` for scripts), made
    /// once: a page has a form per button.
    let csrfToken: String

    /// A new random secret.
    static func random() -> SessionSecret {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return SessionSecret(text: hex(bytes))
    }

    /// A secret as a cookie carried it, if it can be one.
    init?(cookie: String) {
        guard cookie.count == 64, cookie.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.init(text: cookie)
    }

    private init(text: String) {
        self.text = text
        csrfToken = String(Self.hex(Array(SHA256.hash(data: Data(("caresync-csrf:" + text).utf8)))).prefix(32))
    }

    /// The id the store keeps the session under.
    var sessionID: String { Self.hex(Array(SHA256.hash(data: Data(text.utf8)))) }


    /// Whether `token` is this session's CSRF token, compared in constant time.
    func accepts(csrfToken token: String) -> Bool {
        let expected = Array(csrfToken.utf8)
        let given = Array(token.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
