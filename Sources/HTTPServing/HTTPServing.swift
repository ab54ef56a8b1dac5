import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// How every HTTP server of CareSync is served: Hummingbird's server from `builder` (HTTP/1,
/// with TLS where the builder has it) answering each request with `respond`, until a graceful
/// shutdown.
///
/// Not Hummingbird's `Application`: its date cache wakes the process every second for the
/// `Date` header, which made an idle primary with the care app wake 4.6 times a second
/// (`caresync-bench idle`: 5.6 wake-ups a second with it, 1.0 without). Responders that want
/// the header make it when they answer (the care app's `HTTPDate`).
public enum HTTPServing {
    /// Serves on `address` until a graceful shutdown; `onRunning` is told the listening
    /// channel once it is bound. A responder's error is answered 500 and logged low.
    public static func run(
        _ builder: HTTPServerBuilder, on address: BindAddress, logger: Logger,
        respond: @escaping @Sendable (Request, any Channel) async throws -> Response,
        onRunning: @escaping @Sendable (any Channel) async -> Void
    ) async throws {
        let server = try builder.buildServer(
            configuration: ServerConfiguration(address: address, serverName: nil), eventLoopGroup: NIOSingletons.posixEventLoopGroup,
            logger: logger
        ) { request, writer, channel in
            let response: Response
            do {
                response = try await respond(request, channel)
            } catch {
                logger.debug("a request failed", metadata: ["error": "\(error)"])
                response = Response(status: .internalServerError)
            }
            try await writer.write(response: response.head, body: response.body)
        } onServerRunning: { channel in
            await onRunning(channel)
        }
        try await server.run()
    }
}
