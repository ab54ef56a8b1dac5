import Foundation
import Hummingbird

/// A submitted form (`application/x-www-form-urlencoded`): each field's values in order.
struct Form: Sendable {
    private var fields: [String: [String]] = [:]

    /// The most fields a form may have (the largest the app makes has nine).
    static let maximumFields = 64

    /// Parses `body`; a field may repeat (`value=120&value=80`).
    init(_ body: String) throws(WebFailure) {
        let pairs = body.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= Self.maximumFields else { throw .badForm("more than \(Self.maximumFields) fields") }
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw .badForm("the form is not URL-encoded")
            }
            fields[name, default: []].append(value)
        }
    }

    /// Reads the body of `request`, up to `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> Form {
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
        return try Form(String(decoding: body.readableBytesView, as: UTF8.self))
    }

    /// The field's first value, if it was sent.
    subscript(_ name: String) -> String? { fields[name]?.first }

    /// Every value of the field, in order.
    func values(_ name: String) -> [String] { fields[name] ?? [] }

    /// The field's value, or a refusal naming it.
    func required(_ name: String) throws(WebFailure) -> String {
        guard let value = self[name] else { throw .badForm("\"\(name)\" is missing") }
        return value
    }

    /// The field as a whole number in `range`, or a refusal naming it.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(WebFailure) -> Int {
        let text = try required(name)
        guard let value = Int(text), range.contains(value) else {
            throw .badForm("\"\(name)\" must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
