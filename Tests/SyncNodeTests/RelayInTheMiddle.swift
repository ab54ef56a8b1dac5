import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NodeIdentity
import SyncNode

/// A device in the middle: it terminates TLS with its own certificate towards the
/// companion and opens its own TLS connection to the primary, relaying the bytes between.
final class RelayInTheMiddle: Sendable {
    let port: Int
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let task: Task<Void, Never>

    init(to primaryPort: Int) async throws {
        let identity = try NodeIdentity.create(name: "Relay", now: Date())
        let serverContext = try Self.context(identity, server: true)
        let clientContext = try Self.context(identity, server: false)
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLServerHandler(context: serverContext) { _, promise in promise.succeed(.certificateVerified) })
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        port = server.channel.localAddress?.port ?? 0
        task = Task { [server] in
            try? await server.executeThenClose { inbound in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await companion in inbound {
                            group.addTask { await Self.relay(companion, to: primaryPort, context: clientContext) }
                        }
                    } catch {}
                }
            }
        }
    }

    func stop() async {
        try? await server.channel.close()
        await task.value
    }

    private static func relay(_ companion: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to port: Int, context: NIOSSLContext) async {
        guard let primary = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port, channelInitializer: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(context: context, serverHostname: nil) { _, promise in promise.succeed(.certificateVerified) })
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            })
        else {
            try? await companion.executeThenClose { _, _ in }
            return
        }
        try? await companion.executeThenClose { fromCompanion, toCompanion in
            try await primary.executeThenClose { fromPrimary, toPrimary in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await copy(fromCompanion, to: toPrimary) }
                    group.addTask { try? await copy(fromPrimary, to: toCompanion) }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    private static func copy(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws {
        for try await bytes in inbound { try await outbound.write(bytes) }
    }

    /// A node's own TLS configuration (the relay presents its own certificate to each side).
    private static func context(_ identity: NodeIdentity, server: Bool) throws -> NIOSSLContext {
        try NIOSSLContext(configuration: NodeTLS.configuration(identity: identity, server: server))
    }
}
