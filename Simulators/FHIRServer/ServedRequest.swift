import Foundation
import HTTPTypes

/// A whole HTTP request as the server reads it.
struct ServedRequest: Sendable {
    var method: HTTPRequest.Method
    /// The path and query.
    var target: String
    var headers: HTTPFields
    var body: Data
}

/// A status, a JSON body and the headers to send with it.
struct HTTPAnswer: Sendable {
    var status: Int
    var body: Data
    var contentType = "application/fhir+json"
    var headers: [(String, String)] = []
}
