/// Gives the `Authorization` header of each request to a FHIR server: a fixed
/// ``BearerToken``, or access tokens a ``SMARTBackendClient`` obtains and renews.
public protocol RequestAuthorizer: Sendable {
    /// The header's value for the next request. With `renewing`, the server has just refused
    /// the last one (401): a new one, or `nil` if there is none to try.
    ///
    /// - Throws: ``FHIRExportError`` when no authorization can be had (an unreachable
    ///   authorization server is a failure that may pass).
    func authorization(renewing: Bool) async throws(FHIRExportError) -> String?
}
