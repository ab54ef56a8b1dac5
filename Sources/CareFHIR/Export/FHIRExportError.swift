/// Why an export could not be made or delivered, each with a message a person can act on.
public enum FHIRExportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server URL is not an absolute http(s) URL.
    case badURL(String)
    /// No answer: connection refused, name not resolved, or timed out on every attempt.
    case unreachable(url: String, attempts: Int, detail: String)
    /// The server kept answering with a temporary failure (5xx, 408, 429) on every attempt.
    case unavailable(url: String, attempts: Int, status: Int, outcome: String?)
    /// The server refused the transaction (4xx); `outcome` is its OperationOutcome's text.
    case refused(url: String, status: Int, outcome: String?)
    /// The server answered 2xx with something that is not a transaction response.
    case invalidResponse(url: String, detail: String)
    /// A medication activity's stored order cannot be read, or lacks what an export needs.
    case invalidOrder(activity: String, detail: String)
    /// Measurements need a patient to be about, and the plan names none.
    case noPatient
    /// The bearer token or SMART key asked for cannot be had.
    case noToken(String)
    /// The server's SMART authorization refused CareSync, or cannot be used.
    case unauthorized(url: String, reason: String)

    public var description: String {
        switch self {
        case .badURL(let url): "\"\(url)\" is not a FHIR server URL: give an absolute http:// or https:// URL"
        case .unreachable(let url, let attempts, let detail):
            "cannot reach the FHIR server at \(url) (\(Self.attempts(attempts))): \(detail)"
        case .unavailable(let url, let attempts, let status, let outcome):
            "the FHIR server at \(url) kept failing (\(Self.attempts(attempts)), last HTTP \(status))" + Self.text(outcome)
        case .refused(let url, let status, let outcome):
            "the FHIR server at \(url) refused the export (HTTP \(status))" + Self.text(outcome)
        case .invalidResponse(let url, let detail): "the FHIR server at \(url) answered unexpectedly: \(detail)"
        case .invalidOrder(let activity, let detail): "the order of \"\(activity)\" cannot be exported: \(detail)"
        case .noPatient: "the plan names no patient for the Observations to be about: give the plan document a \"patient\""
        case .noToken(let why): why
        case .unauthorized(let url, let reason): "the FHIR server's authorization at \(url) refused CareSync: \(reason)"
        }
    }

    /// This failure after `attempts`, if it may pass (no answer, or a temporary failure).
    func mayPass(attempts: Int) -> FHIRExportError? {
        switch self {
        case .unreachable(let url, _, let detail): .unreachable(url: url, attempts: attempts, detail: detail)
        case .unavailable(let url, _, let status, let outcome): .unavailable(url: url, attempts: attempts, status: status, outcome: outcome)
        default: nil
        }
    }

    private static func attempts(_ count: Int) -> String { count == 1 ? "1 attempt" : "\(count) attempts" }

    private static func text(_ outcome: String?) -> String { outcome.map { ": \($0)" } ?? "" }
}
