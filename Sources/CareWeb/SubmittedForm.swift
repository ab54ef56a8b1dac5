import Foundation
import Hummingbird

/// A submitted form (`application/x-www-form-urlencoded`), read whole and decoded by
/// Hummingbird's `URLEncodedFormDecoder` into the `Decodable` fields of each action.
///
/// The decoder refuses a key given twice; a field with several values is sent as `name[]`
/// (`value[]=120&value[]=80`, what the app's forms write), which it decodes as an array.
struct SubmittedForm: Sendable {
    /// The body, still URL-encoded.
    let text: String

    /// The most fields a form may have (the largest the app makes has nine).
    static let maximumFields = 64

    /// `text` once it has at most ``maximumFields`` fields.
    init(_ text: String) throws(WebFailure) {
        guard text.split(separator: "&", omittingEmptySubsequences: true).count <= Self.maximumFields else {
            throw .badForm("more than \(Self.maximumFields) fields")
        }
        self.text = text
    }

    /// Reads the body of `request`, up to `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> SubmittedForm {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw WebFailure.tooLarge
        } catch {
            // A body that did not arrive whole (malformed chunks, a connection gone): the
            // client's request, not the app, failed.
            throw WebFailure.badForm("the request's body is malformed")
        }
        return try SubmittedForm(String(decoding: body.readableBytesView, as: UTF8.self))
    }

    /// The form's fields as `type`; a missing field is refused by its name, a form the
    /// decoder cannot read as not URL-encoded. A type's own checks throw their ``WebFailure``.
    func decode<Fields: Decodable>(_ type: Fields.Type) throws(WebFailure) -> Fields {
        do {
            return try URLEncodedFormDecoder().decode(type, from: text)
        } catch let failure as WebFailure {
            throw failure
        } catch DecodingError.keyNotFound(let key, _) {
            throw .badForm("\"\(key.stringValue)\" is missing")
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            throw .badForm("\"\(context.codingPath[0].stringValue)\" is not of its kind (a list is sent as name[])")
        } catch {
            throw .badForm("the form is not URL-encoded")
        }
    }
}

/// The field every form of a signed-in page carries: the session's CSRF token.
struct CSRFField: Decodable {
    var csrf: String?
}

extension KeyedDecodingContainer {
    /// The field `key` as a whole number in `range`, or a refusal naming it.
    func integer(_ key: Key, in range: ClosedRange<Int>) throws -> Int {
        let text = try decode(String.self, forKey: key)
        guard let value = Int(text), range.contains(value) else {
            throw WebFailure.badForm("\"\(key.stringValue)\" must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }
}
