import Foundation

/// A secret that authorizes requests to a FHIR server (`Authorization: Bearer …`). It
/// prints as `<bearer token>`, never as itself, so no log or error line can carry it.
public struct BearerToken: Sendable, Hashable, CustomStringConvertible {
    let secret: String

    /// A token as given, without surrounding whitespace; `nil` if nothing is left.
    public init?(_ text: String) {
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty, !secret.contains(where: \.isNewline) else { return nil }
        self.secret = secret
    }

    /// The token in the file at `path` (its owner's alone, as any secret should be).
    ///
    /// - Throws: ``FHIRExportError/noToken(_:)`` when the file cannot be read or holds no token.
    public init(file path: String) throws(FHIRExportError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let token = BearerToken(text) else {
            throw .noToken("no bearer token can be read from \(path)")
        }
        self = token
    }

    public var description: String { "<bearer token>" }

    var header: String { "Bearer \(secret)" }
}

extension BearerToken: RequestAuthorizer {
    /// The token; never another, so a refused one is not tried again.
    public func authorization(renewing: Bool) -> String? { renewing ? nil : header }
}
