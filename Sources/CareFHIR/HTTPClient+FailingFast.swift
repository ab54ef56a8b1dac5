import AsyncHTTPClient

extension HTTPClient {
    /// A client that does not retry establishing connections: an unreachable server fails
    /// at once (AsyncHTTPClient's default retries until the request's timeout), and the
    /// caller decides whether to try again. Shut it down after use.
    static func failingFast() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
