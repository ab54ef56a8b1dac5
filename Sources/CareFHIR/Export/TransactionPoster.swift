import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Clocks

/// What a FHIR server did with a transaction.
public struct TransactionResult: Sendable, Hashable {
    /// The `response.status` of each entry, in the order sent, such as `201 Created`.
    public var statuses: [String]
    /// The attempts it took.
    public var attempts: Int
}

/// Posts transaction Bundles to a FHIR server's base URL, trying again with backoff after
/// failures that may pass (no connection, timeouts, 5xx, 408, 429) and never after a refusal.
public struct TransactionPoster: Sendable {
    /// The server's base URL, as given.
    public let url: String
    public let policy: RetryPolicy
    /// Authorizes every request when the server asks for it.
    public let authorizer: (any RequestAuthorizer)?
    let clock: any WallClock
    let logger: Logger

    /// Fails with ``FHIRExportError/badURL(_:)`` unless `url` is an absolute http(s) URL.
    /// Each failure that is tried again is logged to `logger` (silent unless given).
    public init(
        url: String, policy: RetryPolicy, authorizer: (any RequestAuthorizer)? = nil, clock: any WallClock = .system,
        logger: Logger = Logger(label: "caresync.fhir", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(FHIRExportError) {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()),
              !(parsed.host ?? "").isEmpty, parsed.query == nil, parsed.fragment == nil
        else { throw .badURL(url) }
        self.url = url
        self.policy = policy
        self.authorizer = authorizer
        self.clock = clock
        self.logger = logger
    }

    /// Sends `bundle` until the server accepts it, refuses it, or the policy gives up.
    public func post(_ bundle: Data) async throws(FHIRExportError) -> TransactionResult {
        // The policy alone decides when to try again: the client does not retry connecting.
        let result: Swift.Result<TransactionResult, FHIRExportError> = await HTTPClient.withFailingFastClient(logger: logger) { client in
            do throws(FHIRExportError) {
                return .success(try await post(bundle, with: client))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func post(_ bundle: Data, with client: HTTPClient) async throws(FHIRExportError) -> TransactionResult {
        let start = clock.now
        var attempt = 1
        while true {
            let failure: FHIRExportError
            do {
                let (status, body) = try await send(bundle, with: client)
                switch status {
                case 200..<300: return try result(of: body, attempts: attempt)
                case 408, 429, 500..<600:
                    failure = .unavailable(url: url, attempts: attempt, status: status, outcome: Self.outcome(body))
                default: throw FHIRExportError.refused(url: url, status: status, outcome: Self.outcome(body))
                }
            } catch let error as FHIRExportError {
                // The authorization server unreachable or failing may pass, as the FHIR server's may.
                guard let passing = error.mayPass(attempts: attempt) else { throw error }
                failure = passing
            } catch {
                failure = .unreachable(url: url, attempts: attempt, detail: HTTPClient.describe(error))
            }
            guard let delay = policy.delay(after: attempt, elapsed: .seconds(clock.now.timeIntervalSince(start))),
                  (try? await clock.sleep(delay)) != nil  // cancelled: give up
            else { throw failure }
            logger.warning("the FHIR server did not take the transaction; trying again", metadata: [
                "url": "\(url)", "attempt": "\(attempt)", "waited": "\(delay)", "error": "\(failure)",
            ])
            attempt += 1
        }
    }

    /// Sends `bundle` once, and once more with a renewed authorization if the server
    /// refuses the first (401) and the authorizer has another.
    private func send(_ bundle: Data, with client: HTTPClient) async throws -> (Int, Data) {
        let first = try await send(bundle, with: client, authorization: authorizer?.authorization(renewing: false))
        guard first.0 == 401, let authorizer, let renewed = try await authorizer.authorization(renewing: true) else { return first }
        logger.debug("the FHIR server refused the authorization; sending again with a new one", metadata: ["url": "\(url)"])
        return try await send(bundle, with: client, authorization: renewed)
    }

    private func send(_ bundle: Data, with client: HTTPClient, authorization: String?) async throws -> (Int, Data) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/fhir+json")
        request.headers.add(name: "Accept", value: "application/fhir+json")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(bytes: bundle))
        let response = try await client.execute(request, timeout: TimeAmount(policy.requestTimeout))
        let body = try await response.body.collect(upTo: 32 << 20)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    private func result(of body: Data, attempts: Int) throws(FHIRExportError) -> TransactionResult {
        guard let response = try? JSONDecoder().decode(TransactionResponse.self, from: body), response.resourceType == "Bundle" else {
            throw .invalidResponse(url: url, detail: "expected a transaction-response Bundle")
        }
        return TransactionResult(statuses: (response.entry ?? []).map(\.response.status), attempts: attempts)
    }

    /// The text of an OperationOutcome's issues, if `body` is one.
    static func outcome(_ body: Data) -> String? {
        guard let outcome = try? JSONDecoder().decode(OperationOutcome.self, from: body),
              outcome.resourceType == "OperationOutcome" else { return nil }
        let texts = (outcome.issue ?? []).compactMap { $0.diagnostics ?? $0.details?.displayName }
        return texts.isEmpty ? nil : texts.joined(separator: "; ")
    }

}

/// The parts of a transaction-response Bundle a poster reads.
private struct TransactionResponse: Decodable {
    struct Entry: Decodable {
        struct Status: Decodable { var status: String }
        var response: Status
    }
    var resourceType: String
    var entry: [Entry]?
}

/// The parts of an OperationOutcome a poster reads.
private struct OperationOutcome: Decodable {
    struct Issue: Decodable {
        var diagnostics: String?
        var details: CodeableConcept?
    }
    var resourceType: String
    var issue: [Issue]?
}
