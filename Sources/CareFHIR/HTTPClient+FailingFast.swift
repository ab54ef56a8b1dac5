import AsyncHTTPClient
import Logging

extension HTTPClient {
    /// Runs `body` with a client that does not retry establishing connections (an
    /// unreachable server fails at once: AsyncHTTPClient's default retries until the
    /// request's timeout, and the caller decides whether to try again) and follows no
    /// redirect (a bearer token, a code or a verifier must not follow one to another host: a
    /// caller that follows one checks where it goes). The client is shut down after; a
    /// failed shutdown costs nothing but is logged.
    static func withFailingFastClient<T>(logger: Logger, _ body: (HTTPClient) async -> T) async -> T {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration, backgroundActivityLogger: logger)
        let result = await body(client)
        do {
            try await client.shutdown()
        } catch {
            logger.debug("the HTTP client did not shut down cleanly", metadata: ["error": "\(error)"])
        }
        return result
    }

    /// A request's failure in words a person can act on.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "no answer in time"
            default: return String(describing: error)
            }
        }
        let text = String(describing: error)
        return text.localizedCaseInsensitiveContains("connection refused") ? "connection refused" : text
    }
}
