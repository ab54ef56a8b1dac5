import Foundation
import Hummingbird

/// What the server does with every request first: reads its body whole, records it in
/// ``FHIRTestServer/requests`` with the status it is answered (and tells
/// ``FHIRTestServer/Options/answered``), and leaves a request ``FHIRGate`` holds hanging until
/// the server stops (its task is cancelled, and the connection closed with it).
struct RequestRecorder: RouterMiddleware {
    typealias Context = BasicRequestContext
    let shared: SharedState

    /// The largest request body read: an export's batch Bundle is far smaller.
    static let largestBody = 64 << 20

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let body = Data(buffer: try await request.collectBody(upTo: Self.largestBody))
        let entries = (try? JSONDecoder().decode(BundleEntries.self, from: body))?.entry?.count ?? 0
        let index = shared.state.withLock { state in
            state.requests.append(FHIRTestServer.Request(method: request.method.rawValue, path: request.uri.description, status: nil, entries: entries))
            return state.requests.count - 1
        }
        var response: Response?
        do {
            response = try await next(request, context)
        } catch is FHIRGate.Hang {
            response = nil
        } catch {
            response = FHIRGate.answer(to: error, request)
        }
        let (record, answered) = shared.state.withLock { state in
            state.requests[index].status = response.map { Int($0.status.code) }
            return (state.requests[index], state.options.answered)
        }
        answered?(record)
        guard let response else {
            try await Task.sleep(for: .seconds(86_400 * 365))
            throw CancellationError()
        }
        return response
    }

    /// How many entries a Bundle has, whatever they hold.
    private struct BundleEntries: Decodable {
        struct Anything: Decodable {
            init(from decoder: any Decoder) {}
        }
        var entry: [Anything]?
    }
}

/// What a FHIR request passes before its route (``ServerState/admit(_:authorization:body:)``),
/// and after it: a refusal or an error answered with an OperationOutcome, and the state file
/// written after every change.
struct FHIRGate: RouterMiddleware {
    typealias Context = BasicRequestContext
    let shared: SharedState

    /// A request left without an answer.
    struct Hang: Error {}

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let body = Data(buffer: try await request.body.collect(upTo: .max))
        let admission = shared.state.withLock { $0.admit(request.method, authorization: request.headers[.authorization], body: body) }
        switch admission {
        case .hang: throw Hang()
        case .answered(let response): return response
        case .letIn: break
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.answer(to: error, request)
        }
        guard request.method != .get, response.status.code < 300, let file = shared.state.withLock({ $0.options.stateFile }) else { return response }
        guard (try? shared.state.withLock { try $0.store.save(to: file) }) != nil else {
            return .outcome(500, "the test server cannot write \(file)", code: "exception")
        }
        return response
    }

    /// The OperationOutcome answering a refusal, a request no route takes, or one that failed.
    static func answer(to error: any Error, _ request: Request) -> Response {
        switch error {
        case let refusal as Refusal:
            return .outcome(refusal.status, refusal.text)
        case let http as HTTPError where http.status == .notFound:
            let path = request.uri.path
            return .outcome(404, path.hasPrefix("/fhir") ? "the test server does not answer \(request.method.rawValue) \(path)" : "the test server answers below /fhir/ only")
        default:
            return .outcome(400, "malformed request: \(error)", code: "structure")
        }
    }
}
