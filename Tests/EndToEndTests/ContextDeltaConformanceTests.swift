import CarePlan
import Foundation
import NodeIdentity
import SyncProtocol
import Testing

/// Section 10, Deltas, checked from outside against a `caresync primary`: raw frames from a
/// peer with a paired watch's identity that offers the `context-delta` feature (or not).
extension ProtocolConformanceTests {
    func hello(_ identity: NodeIdentity, offeringDeltasHolding held: HeldContext?) -> Caresync_V1_Envelope {
        var envelope = hello(identity)
        envelope.hello.features = [ProtocolFeature.contextDelta]
        if let held { envelope.hello.heldContext = held.wire }
        return envelope
    }

    /// A peer past a Hello that offers deltas holding `held`: its HelloAck has arrived. The
    /// primary closes a peer whose Hello is not in within 5 s of its connect (a loaded test
    /// process has taken longer for its TLS handshake), so a peer closed unanswered tries again.
    func connect(_ primary: PrimaryProcess, _ watch: NodeIdentity, offeringDeltasHolding held: HeldContext?) async throws -> TLSPeer {
        for _ in 1...5 {
            let peer = try await TLSPeer(port: primary.port, identity: watch)
            try await peer.send(hello(watch, offeringDeltasHolding: held))
            do {
                if Self.isHelloAck(try await peer.waitForFrame(where: { Self.isHelloAck($0) || $0.error.fatal })) { return peer }
            } catch is TLSPeer.Closed {
                continue
            }
        }
        throw ProcessFailed(description: "no HelloAck in five connections")
    }

    static func isHelloAck(_ envelope: Caresync_V1_Envelope) -> Bool {
        if case .helloAck = envelope.body { true } else { false }
    }

    static func isContext(_ envelope: Caresync_V1_Envelope) -> Bool {
        if case .applicationContext = envelope.body { true } else { false }
    }

    static func isDelta(_ envelope: Caresync_V1_Envelope) -> Bool {
        if case .contextDelta = envelope.body { true } else { false }
    }

    @Test func aCompanionOfferingDeltasGetsWhatChangedAndAWholeContextWhenItAsks() async throws {
        let (caresync, primary, watch) = try await primaryWithPairedWatch()
        let peer = try await connect(primary, watch, offeringDeltasHolding: nil)
        let ack = try await peer.waitForFrame { Self.isHelloAck($0) }.helloAck
        #expect(ack.features == [ProtocolFeature.contextDelta])
        // Holding nothing, it gets the whole context first.
        let first = try ApplicationContext(wire: try await peer.waitForFrame(where: Self.isContext).applicationContext)

        #expect(try await caresync.run("complete", "golden-apple", "--occurrence", "0").status == 0)
        let wire = try await peer.waitForFrame(where: Self.isDelta).contextDelta
        let delta = try ContextDelta(wire: wire)
        #expect(delta.base == first.held)
        #expect(delta.revision > first.revision)
        #expect(delta.replacedDays.isEmpty)
        #expect(delta.changedEvents.flatMap(\.events).map(\.key.occurrence) == [0])
        #expect(delta.changedEvents.flatMap(\.events).map(\.key.activityID) == ["golden-apple"])
        let newer = try #require(delta.applied(to: first))
        #expect(newer.days.flatMap(\.events).filter { $0.state == .completed }.map(\.key.activityID) == ["golden-apple"])
        let deltaBytes = try Caresync_V1_Envelope.with { $0.contextDelta = wire }.serializedData().count
        let wholeBytes = try Caresync_V1_Envelope.context(newer).serializedData().count
        #expect(deltaBytes * 2 < wholeBytes, "delta \(deltaBytes) B, whole \(wholeBytes) B")

        // Asked for a whole context, it gets the one the delta gave, as an ApplicationContext.
        let known = try peer.frames.count
        try await peer.send(.contextRequest)
        let whole = try await peer.waitForFrame(after: known, where: Self.isContext).applicationContext
        #expect(try ApplicationContext(wire: whole) == newer)
        #expect(try peer.frames.dropFirst(known).contains(where: Self.isDelta) == false)
    }

    /// A Hello naming a context the primary built answers with a delta from it; one naming a
    /// context it never built (or built at another time: a restored store) with the whole context.
    @Test func aReconnectingCompanionGetsADeltaOnlyFromAContextThePrimaryBuilt() async throws {
        let (caresync, primary, watch) = try await primaryWithPairedWatch()
        let first = try await established(primary, watch)
        let held = try ApplicationContext(wire: try await first.waitForFrame(where: Self.isContext).applicationContext)
        // (A closing peer waits up to 5 s for the primary's close_notify: left to deinit.)
        #expect(try await caresync.run("complete", "golden-apple", "--occurrence", "0").status == 0)

        let again = try await connect(primary, watch, offeringDeltasHolding: held.held)
        // The first delta is from the context held; the primary may notice the change made by
        // another process only after it, and then sends a delta from the context it gave.
        let apple = EventKey(activityID: "golden-apple", day: held.days[0].day, occurrence: 0)
        var current = held
        var next = 0
        while current.item(apple)?.state != .completed {
            let wire = try await again.waitForFrame(after: next, where: Self.isDelta).contextDelta
            next = try #require(try again.frames.dropFirst(next).firstIndex(where: Self.isDelta)) + 1
            let delta = try ContextDelta(wire: wire)
            if current == held { #expect(delta.base == held.held) }
            current = try #require(delta.applied(to: current), "\(delta) does not apply to \(current.held)")
        }
        #expect(try again.frames.contains(where: Self.isContext) == false)

        var strangers = [held.held, held.held]
        strangers[0].generatedAtMs += 1
        strangers[1].revision = 1
        for stranger in strangers {
            let peer = try await connect(primary, watch, offeringDeltasHolding: stranger)
            let whole = try await peer.waitForFrame(where: Self.isContext).applicationContext
            #expect(whole.revision == UInt64(current.revision))
            #expect(try peer.frames.contains(where: Self.isDelta) == false)
        }
    }

    /// A companion that does not offer the feature gets exactly the protocol it had: no
    /// feature in the HelloAck, and every context whole.
    @Test func aSnapshotOnlyCompanionNeverGetsADelta() async throws {
        let (caresync, primary, watch) = try await primaryWithPairedWatch()
        let peer = try await established(primary, watch)
        #expect(try await peer.waitForFrame { Self.isHelloAck($0) }.helloAck.features.isEmpty)
        let before = try await peer.waitForFrame(where: Self.isContext).applicationContext.revision
        #expect(try await caresync.run("complete", "golden-apple", "--occurrence", "0").status == 0)
        // The completion's context comes whole (waited for; it throws if it never comes).
        _ = try await peer.waitForFrame { Self.isContext($0) && $0.applicationContext.revision > before }
        #expect(try peer.frames.contains(where: Self.isDelta) == false)
    }

    /// A `held_context` that does not convert is a malformed Hello.
    @Test func aHeldContextThatDoesNotConvertIsMalformed() async throws {
        let (_, primary, watch) = try await primaryWithPairedWatch()
        let peer = try await TLSPeer(port: primary.port, identity: watch)
        var envelope = hello(watch, offeringDeltasHolding: nil)
        envelope.hello.heldContext = .with { $0.revision = .max; $0.days = ["2026-11-23"] }
        try await peer.send(envelope)
        let error = try #require(try await framesUntilClosed(peer).last).error
        #expect(error.code == .malformedFrame && error.fatal, "\(error)")
        #expect(error.message == "revision \(UInt64.max) is too large")
    }
}
