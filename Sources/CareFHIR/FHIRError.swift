import Foundation
import StrictJSON

/// Why FHIR input was refused, with the JSON path of the offending element where there is one
/// (such as `Bundle.entry[2].resource.dosageInstruction[0].timing.repeat.periodUnit`).
public enum FHIRError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input is not standard JSON: where it stops being JSON, and what was expected.
    case notJSON(JSONSyntaxError)
    /// An element has the wrong type, a required one is missing, or a value is malformed.
    case invalid(path: String, String)
    /// A resource type CareSync does not import at this place.
    case unsupportedResource(path: String, type: String)
    /// A value FHIR allows that CareSync cannot interpret, such as an unknown `when` code.
    case unsupported(path: String, String)
    /// A FHIR server answered with an error, or could not be reached.
    case server(url: String, String)
    /// An error in the document read from a file or a server URL, which it names.
    indirect case inDocument(String, FHIRError)
    /// Orders a strict import refused (it then writes nothing).
    case refused([ImportRefusal])

    public var description: String {
        switch self {
        case .notJSON(let error): "\(error)"
        case .invalid(let path, _), .unsupported(let path, _), .unsupportedResource(let path, _): "\(path): \(reason)"
        case .server(let url, let why): "FHIR server \(url): \(why)"
        case .inDocument(let document, let error): "\(document): \(error)"
        case .refused(let refusals):
            "\(refusals.count) of the orders cannot be imported (nothing was written): "
                + refusals.map(\.description).joined(separator: "; ")
        }
    }

    /// The FHIR path of the element the error is about, if it names one.
    public var path: String? {
        switch self {
        case .invalid(let path, _), .unsupported(let path, _), .unsupportedResource(let path, _): path
        case .inDocument(_, let error): error.path
        case .notJSON, .server, .refused: nil
        }
    }

    /// What is wrong, without the path and document.
    public var reason: String {
        switch self {
        case .invalid(_, let why): why
        case .unsupported(_, let why): "unsupported: \(why)"
        case .unsupportedResource(_, let type):
            "a \(type) cannot be imported; use a Bundle, MedicationRequest (R4) or MedicationOrder (DSTU2)"
        case .inDocument(_, let error): error.reason
        case .notJSON, .server, .refused: description
        }
    }

    /// This error as met in `document` (a file or URL); itself where there is none, or where
    /// it names a document already (a server's own error names its URL).
    func inDocument(_ document: String?) -> FHIRError {
        switch (document, self) {
        case (nil, _), (_, .inDocument), (_, .server), (_, .refused): self
        case (let document?, _): .inDocument(document, self)
        }
    }

    /// The error for a `DecodingError` met while decoding the element at `path`.
    init(_ error: DecodingError, at path: String) {
        func where_(_ context: DecodingError.Context) -> String {
            FHIRPath.appending(context.codingPath, to: path)
        }
        switch error {
        case .typeMismatch(let type, let context):
            self = .invalid(path: where_(context), "expected \(FHIRPath.typeName(type))")
        case .valueNotFound(let type, let context):
            self = .invalid(path: where_(context), "expected \(FHIRPath.typeName(type)), found null")
        case .keyNotFound(let key, let context):
            self = .invalid(path: FHIRPath.appending(context.codingPath + [key], to: path), "required, but missing")
        case .dataCorrupted(let context):
            self = .invalid(path: where_(context), context.debugDescription)
        @unknown default:
            self = .invalid(path: path, "\(error)")
        }
    }
}

/// Paths into FHIR JSON as messages show them: `MedicationRequest.dosageInstruction[0].timing`.
enum FHIRPath {
    static func appending(_ keys: [any CodingKey], to path: String) -> String {
        keys.reduce(path) { path, key in
            key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Decimal.Type, is Double.Type: "a number"
        case is [Any].Type: "a list"
        default: "an object"
        }
    }
}
