import CareCore
import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NodeIdentity
import SyncNode
import Synchronization
import SyncProtocol

/// A companion at its lightest, for load: one TLS connection speaking the protocol as a
/// paired watch or widget does (Hello offering deltas, contexts in, completions out, pings),
/// with nothing kept on disk and contexts only counted (their revision read from the wire,
/// ``ContextRevision``), as Mosquitto's clients persist nothing. A thousand of them fit in
/// the benchmark's process, so the primary they load runs in a process of its own and its
/// memory is its own.
final class FleetClient: Sendable {
    /// What it has seen, for the benchmark to read.
    struct Seen: Sendable {
        var acknowledged = false
        /// The newest context revision it holds, and when it arrived.
        var revision = -1
        var reachedAt = ContinuousClock.now
        var contexts = 0
        /// Of those, how many came whole rather than as a delta.
        var wholeContexts = 0
        /// Bytes read from the socket (TLS records included).
        var bytesReceived = 0
        /// How often the primary asked it to ping (its HelloAck).
        var pingInterval: Duration?
        /// Why the connection ended or what the primary refused, if it did.
        var problem: String?
        var closed = false
    }

    private struct State: Sendable {
        var seen = Seen()
        var waiting: [String: CheckedContinuation<CompletionResult, Never>] = [:]
    }

    let index: Int
    let identity: NodeIdentity
    let role: DeviceRole
    private let state = Mutex(State())
    private let channel = Mutex<(any Channel)?>(nil)
    /// Its completions' logical clock: each later than the one before.
    private let ticks = Mutex<UInt32>(0)

    init(index: Int, identity: NodeIdentity) {
        self.index = index
        self.identity = identity
        role = index % 2 == 0 ? .watch : .widget
    }

    var seen: Seen { state.withLock { $0.seen } }

    /// A new companion, its device registered in `store` as a pairing would (no scrypt
    /// derivation each).
    static func registered(index: Int, in store: CarePlanStore, name prefix: String = "Fleet companion") async throws -> FleetClient {
        let client = FleetClient(index: index, identity: try NodeIdentity.create(name: "\(prefix) \(index)", now: Date()))
        let code = "\(prefix)-\(index)"
        try await CareCore(store: store).access.openPairingCode(code, role: client.role, mayRecord: true, expiresAt: Date().addingTimeInterval(3600))
        guard let candidate = try await store.devices.pairingCandidates().first(where: { $0.code == code }),
              case .success = try await CareCore(store: store).access.redeemPairing(
                  codeID: candidate.id, deviceID: client.identity.fingerprint, name: "\(prefix) \(index)", role: client.role)
        else { throw BenchmarkFailure("companion \(index) could not be registered") }
        return client
    }

    /// Connects to the primary on loopback `port`, pinning its certificate, and says Hello,
    /// offering context deltas unless told not to.
    func connect(port: Int, primary fingerprint: String, group: any EventLoopGroup, deltas: Bool = true) async throws {
        let tls = try NIOSSLContext(configuration: NodeTLS.configuration(identity: identity, server: false))
        let handler = Handler(client: self)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let verifier = try NIOSSLClientHandler(context: tls, serverHostname: nil) { certificates, promise in
                        let presented = certificates.first.flatMap { try? $0.toDERBytes() }.map(NodeIdentity.fingerprint(ofDER:))
                        promise.succeed(presented == fingerprint ? .certificateVerified : .failed)
                    }
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteCounter(client: self), verifier, ByteToMessageHandler(FrameDecoder()), handler,
                    ])
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        self.channel.withLock { $0 = channel }
        let hello = Caresync_V1_Envelope.hello(
            nodeID: identity.fingerprint, role: role, softwareVersion: "caresync-bench", planID: nil,
            displayName: "Fleet companion \(index)", features: deltas ? [ProtocolFeature.contextDelta] : [])
        try await channel.writeAndFlush(try Frame.encode(hello)).get()
    }

    /// Sends a completion of `key` (with `values`, an assessment's answer) and waits for the
    /// primary's answer.
    func complete(_ key: EventKey, values: [OutcomeValue] = []) async throws -> CompletionResult {
        guard let channel = channel.withLock({ $0 }) else { throw BenchmarkFailure("companion \(index) is not connected") }
        let now = Date()
        let completion = Caresync_V1_Completion(
            messageID: UUID().uuidString.lowercased(), key: key, state: .completed, values: values, deviceTime: now,
            clock: HybridTimestamp(physical: Int64(now.timeIntervalSince1970 * 1000), logical: ticks.withLock { $0 += 1; return $0 },
                                   node: identity.fingerprint),
            reason: nil)
        let frame = try Frame.encode(.completion(completion))
        return await withCheckedContinuation { continuation in
            state.withLock { $0.waiting[completion.messageID] = continuation }
            channel.writeAndFlush(frame).whenFailure { [self] error in
                answer(completion.messageID, .refused(code: "NOT_SENT", detail: "\(error)"))
            }
        }
    }

    /// Says Goodbye and closes.
    func close() async {
        guard let channel = channel.withLock({ $0 }) else { return }
        if let goodbye = try? Frame.encode(.goodbye(.shutdown, detail: "benchmark done")) {
            try? await channel.writeAndFlush(goodbye).get()
        }
        try? await channel.close()
    }

    private func answer(_ messageID: String, _ result: CompletionResult) {
        state.withLock { $0.waiting.removeValue(forKey: messageID) }?.resume(returning: result)
    }

    /// Everything unanswered is answered as refused once the connection has gone.
    private func ended(_ problem: String?) {
        let waiting = state.withLock { state in
            state.seen.closed = true
            if state.seen.problem == nil { state.seen.problem = problem }
            defer { state.waiting.removeAll() }
            return state.waiting.values
        }
        for continuation in waiting {
            continuation.resume(returning: .refused(code: "DISCONNECTED", detail: problem ?? "the connection closed"))
        }
    }

    private func received(_ envelope: Caresync_V1_Envelope, on context: ChannelHandlerContext) {
        switch envelope.body {
        case .helloAck(let ack):
            state.withLock { state in
                state.seen.acknowledged = true
                state.seen.pingInterval = .milliseconds(Int64(ack.pingIntervalMs))
            }
            schedulePings(every: .milliseconds(Int64(ack.pingIntervalMs)), on: context.channel)
        case .completionReply(let reply):
            answer(reply.messageID, CompletionResult(reply: reply))
        case .ping(let ping):
            if let pong = try? Frame.encode(.pong(nonce: ping.nonce)) { context.writeAndFlush(NIOAny(pong), promise: nil) }
        case .error(let error):
            state.withLock { $0.seen.problem = "\(error.code): \(error.message)" }
        default:
            break
        }
    }

    fileprivate func held(revision: Int, whole: Bool) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.seen.contexts += 1
            if whole { state.seen.wholeContexts += 1 }
            if revision > state.seen.revision {
                state.seen.revision = revision
                state.seen.reachedAt = now
            }
        }
    }

    /// Pings the primary as a companion does, so the idle deadline never closes it.
    private func schedulePings(every interval: TimeAmount, on channel: any Channel) {
        guard interval > .zero else { return }
        channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
            guard channel.isActive, let ping = try? Frame.encode(.ping(nonce: UInt64.random(in: 1...UInt64.max))) else {
                task.cancel()
                return
            }
            channel.writeAndFlush(ping, promise: nil)
        }
    }

    /// The start of the pipeline: counts the bytes the socket gives.
    private final class ByteCounter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let client: FleetClient

        init(client: FleetClient) {
            self.client = client
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let count = unwrapInboundIn(data).readableBytes
            client.state.withLock { $0.seen.bytesReceived += count }
            context.fireChannelRead(data)
        }
    }

    /// The end of the pipeline: frame payloads in.
    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let client: FleetClient

        init(client: FleetClient) {
            self.client = client
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let payload = unwrapInboundIn(data)
            if let context = ContextRevision.read(payload) {
                client.held(revision: context.revision, whole: context.whole)
                return
            }
            do {
                client.received(try Frame.decode(payload), on: context)
            } catch {
                client.ended("an undecodable frame: \(error)")
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            client.ended(nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            client.ended("\(error)")
            context.close(promise: nil)
        }
    }
}
