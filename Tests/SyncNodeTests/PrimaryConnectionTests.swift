import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import NIOEmbedded
import NodeIdentity
@testable import SyncNode
import SyncProtocol
import TestSupport
import Testing

/// One connection of the primary, driven frame by frame over NIOAsyncTestingChannel: no
/// socket, no TLS, no listener, only the connection's own rules.
final class PrimaryConnectionTests {
    let scratch = Scratch()
    let directory: URL
    let store: CarePlanStore
    let node: PrimaryNode
    let today = CalendarDay.containing(Date(), in: .gmt)
    /// The fingerprint a paired watch presents (without TLS, its Hello's node id).
    let watch = String(repeating: "ab", count: 32)

    init() async throws {
        directory = scratch.url.appendingPathComponent("connection")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let apple = try Activity(identifier: "apple", kind: .intervention, title: "Apple", schedule: .daily(occurrences: 2, start: today))
        try await store.core.plan.load(Plan(title: "Test", timeZone: .gmt, activities: [apple]), effectiveFrom: today, device: "test")
        try await store.core.access.openPairingCode("7K3MQ9XA", role: .watch, mayRecord: true, expiresAt: Date().addingTimeInterval(60))
        let code = try #require(try await store.devices.pairingCandidates().first)
        _ = try await store.core.access.redeemPairing(codeID: code.id, deviceID: watch, name: "Watch", role: .watch).get()
        var configuration = PrimaryConfiguration(identity: try NodeIdentity.create(name: "Primary", now: Date()))
        configuration.security = .unencrypted
        node = PrimaryNode(store: store, configuration: configuration)
    }

    /// A channel with the primary's frame decoder and completion intake, and the connection
    /// serving it.
    func connect() async throws -> (NIOAsyncTestingChannel, Task<Void, Never>) {
        let channel = NIOAsyncTestingChannel()
        let (framed, intake) = try await channel.testingEventLoop.executeInContext {
            let intake = CompletionIntake()
            try channel.pipeline.syncOperations.addHandlers([
                ByteToMessageHandler(FrameDecoder(maximumBytes: Frame.defaultMaximumBytes)), intake,
            ])
            return (try FramedChannel(wrappingChannelSynchronously: channel), intake.control(on: channel.eventLoop))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7654))
        let serving = Task { [node] in await PrimaryConnection(node: node, connection: AcceptedConnection(framed: framed, peer: nil, intake: intake)).serve() }
        return (channel, serving)
    }

    func send(_ envelope: Caresync_V1_Envelope, to channel: NIOAsyncTestingChannel) async throws {
        try await channel.writeInbound(try Frame.encode(envelope))
    }

    /// The next frame the primary writes, decoded.
    func received(from channel: NIOAsyncTestingChannel) async throws -> Caresync_V1_Envelope {
        var frame = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        frame.moveReaderIndex(forwardBy: 4)
        return try Frame.decode(frame)
    }

    func hello(_ nodeID: String) -> Caresync_V1_Envelope {
        .with {
            $0.hello = .with {
                $0.protocolVersions = ProtocolVersion.supported
                $0.nodeID = nodeID
                $0.role = .watch
            }
        }
    }

    @Test func aPairedWatchGetsItsContextAndAnAnswerOnceTheCompletionIsCommitted() async throws {
        let (channel, serving) = try await connect()
        try await send(hello(watch), to: channel)
        let ack = try await received(from: channel)
        #expect(ack.helloAck.role == .primary && ack.helloAck.nodeID == node.configuration.nodeID)
        let context = try ApplicationContext(wire: try await received(from: channel).applicationContext)
        #expect(context.revision == (try await store.revision()))
        // Today's (from 20:00 a watch sees tomorrow's too).
        #expect(context.incomplete.filter { $0.key.day == today }.map(\.key.occurrence) == [0, 1])

        let key = EventKey(activityID: "apple", day: today, occurrence: 1)
        try await send(.with {
            $0.completion = .with {
                $0.messageID = "m-1"
                $0.activityID = key.activityID
                $0.day = key.day.description
                $0.occurrence = UInt32(key.occurrence)
                $0.state = .completed
                $0.deviceTimeMs = Date().millisecondsSince1970
            }
        }, to: channel)
        let reply = try await received(from: channel).completionReply
        #expect(reply.messageID == "m-1" && reply.status == .accepted)
        // Answered only once committed: the store already holds it, at the revision replied.
        #expect(try await store.outcomes.event(key).state == .completed)
        #expect(Int(reply.revision) == (try await store.revision()))

        try await channel.close()
        await serving.value
    }

    /// Frames that arrive together are answered one at a time, in order, whether the event
    /// loop answers them (completions, one refused before the store) or the connection's task
    /// (a ping): the next is handled only once the one before is answered (section 8).
    @Test func framesThatArriveTogetherAreAnsweredInOrder() async throws {
        let (channel, serving) = try await connect()
        try await send(hello(watch), to: channel)
        _ = try await received(from: channel).helloAck
        _ = try await received(from: channel).applicationContext
        func completion(_ id: String, occurrence: Int) -> Caresync_V1_Envelope {
            .with {
                $0.completion = .with {
                    $0.messageID = id
                    $0.activityID = "apple"
                    $0.day = today.description
                    $0.occurrence = UInt32(occurrence)
                    $0.state = .completed
                    $0.deviceTimeMs = Date().millisecondsSince1970
                }
            }
        }
        for envelope in [completion("m-1", occurrence: 0), .ping(nonce: 7), completion("", occurrence: 1), completion("m-2", occurrence: 1)] {
            try await send(envelope, to: channel)
        }
        var answers: [String] = []
        while answers.count < 4 {
            switch try await received(from: channel).body {
            case .completionReply(let reply): answers.append("reply \(reply.messageID) \(reply.status)")
            case .pong(let pong): answers.append("pong \(pong.nonce)")
            case .error(let error): answers.append("error \(error.code) fatal \(error.fatal)")
            case .contextDelta, .applicationContext: continue
            case let other: Issue.record("unexpected \(String(describing: other))")
            }
        }
        #expect(answers == ["reply m-1 accepted", "pong 7", "error MALFORMED_FRAME fatal false", "reply m-2 accepted"])
        try await channel.close()
        await serving.value
    }

    @Test func anUnpairedDeviceHearsNotPairedAndTheConnectionCloses() async throws {
        let (channel, serving) = try await connect()
        try await send(hello(String(repeating: "cd", count: 32)), to: channel)
        let refusal = try await received(from: channel)
        #expect(refusal.error.code == .notPaired)
        await serving.value
        #expect(!channel.isActive)
    }

    @Test func aCompletionBeforeTheHelloBreaksTheProtocol() async throws {
        let (channel, serving) = try await connect()
        try await send(.with { $0.completion = .with { $0.messageID = "early" } }, to: channel)
        let refusal = try await received(from: channel)
        #expect(refusal.error.code == .protocolViolation)
        #expect(refusal.error.fatal)
        await serving.value
        #expect(try await store.history(activityID: "apple").count == 1)  // only the plan's own change
    }

    /// Reports are a household device's feature: a watch that acknowledges one, or any
    /// companion that sends a piece of one, breaks the protocol (section 8).
    @Test(arguments: [
        (Caresync_V1_Envelope.reportReceived(3), "unexpected report_received without the report feature"),
        (Caresync_V1_Envelope.with { $0.reportChunk = .with { $0.reportRevision = 3 } }, "unexpected report_chunk from a companion"),
    ])
    func reportMessagesFromAWatchBreakTheProtocol(_ envelope: Caresync_V1_Envelope, _ message: String) async throws {
        let (channel, serving) = try await connect()
        var offering = hello(watch)
        offering.hello.features = [ProtocolFeature.report]
        try await send(offering, to: channel)
        #expect(try await received(from: channel).helloAck.features.isEmpty)
        _ = try await received(from: channel).applicationContext
        try await send(envelope, to: channel)
        let refusal = try await received(from: channel).error
        #expect(refusal.code == .protocolViolation && refusal.fatal && refusal.message == message)
        await serving.value
    }
}
