import Foundation
import HTTPTypes
import Hummingbird

/// The answers the server gives: FHIR and OAuth documents as JSON, pages and redirects.
extension Response {
    /// `document` as JSON, answered with `status`.
    static func json(
        _ status: Int, _ document: some Encodable, contentType: String = "application/fhir+json", headers: HTTPFields = [:]
    ) -> Response {
        body(status, FHIRDocument.data(document), contentType: contentType, headers: headers)
    }

    /// An OperationOutcome saying `text`.
    static func outcome(_ status: Int, _ text: String, code: String = "processing", headers: HTTPFields = [:]) -> Response {
        json(status, FHIRDocument.OperationOutcome(text, code: code), headers: headers)
    }

    /// An OAuth document (a token, an error, the SMART configuration), never cached.
    static func oauth(_ status: Int, _ document: some Encodable) -> Response {
        json(status, document, contentType: "application/json", headers: [.cacheControl: "no-store"])
    }

    /// An OAuth 2.0 error answer (RFC 6749 section 5.2).
    static func oauthError(_ status: Int, _ error: String, _ description: String) -> Response {
        oauth(status, OAuthDocument.Failure(error: error, errorDescription: description))
    }

    /// `body` as it is, answered with `status`.
    static func body(_ status: Int, _ body: Data, contentType: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
