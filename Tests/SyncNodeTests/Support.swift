import CareBackup
import CarePlan
import CarePlanStore
import Foundation
@_exported import TestSupport
import NIOCore
import NodeIdentity
@testable import SyncNode
import Synchronization
import SyncProtocol
import Testing
import Clocks
import Waiting

/// A primary on loopback in this process, over a fresh store with one activity.
final class TestPrimary: Sendable {
    /// Where the primary's files and its companions' state directories are.
    let scratch = Scratch()
    let directory: URL
    let store: CarePlanStore
    let serving: ServingPrimary
    /// What the primary's connection deadlines wait on: still unless the test moves it.
    let deadlines = ManualClock()

    /// - Parameters:
    ///   - now: the primary's wall clock (default: the real one).
    ///   - configure: any other change to the primary's configuration.
    init(
        activityID: String = "apple", clock: (any WallClock)? = nil, configure: (inout PrimaryConfiguration) -> Void = { _ in }
    ) async throws {
        directory = scratch.url.appendingPathComponent("node")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let today = CalendarDay.containing(Date(), in: .gmt)
        let activity = try Activity(
            identifier: activityID, kind: .intervention, title: "Apple",
            schedule: .daily(occurrences: 3, start: today.adding(days: -30)))
        try await store.core.plan.load(Plan(title: "Test", timeZone: .gmt, activities: [activity]), effectiveFrom: today.adding(days: -30), device: "test")
        var configuration = PrimaryConfiguration(identity: try NodeIdentity.create(name: "Test primary", now: Date()))
        configuration.port = 0
        // The deadlines wait on a clock that only the test moves: a machine busy with the whole
        // suite must not close a pairing midway ("I/O on closed channel" in CI, on the real
        // clock). They are tested by moving it (DeadlineHandlerTests, ConnectionDeadlineTests)
        // and, on the real clock, with real processes (SyncFailureTests).
        configuration.deadlineClock = deadlines
        if let clock {
            configuration.clock = clock
            configuration.dayCheckInterval = .milliseconds(20)
        }
        configure(&configuration)
        serving = try await ServingPrimary.start(PrimaryNode(store: store, configuration: configuration))
    }

    var node: PrimaryNode { serving.node }
    var port: Int { serving.port }
    var endpoint: PrimaryEndpoint { PrimaryEndpoint(host: "127.0.0.1", port: port) }

    /// Opens a pairing code for a device of `role`, as `caresync pair` does.
    func openCode(
        _ role: DeviceRole, mayRecord: Bool = false, standby: Bool = false, expiresIn lifetime: TimeInterval = 300
    ) async throws -> PairingCode {
        let code = PairingCode.random()
        try await store.core.access.openPairingCode(
            code.characters, role: role, mayRecord: mayRecord, standby: standby, expiresAt: Date().addingTimeInterval(lifetime))
        return code
    }

    /// A companion paired with this primary as the exchange leaves both sides: its code
    /// redeemed through the care core, the device listed, the primary pinned in the
    /// companion's state. Not the exchange itself, whose two scrypt derivations cost a second
    /// of CPU in a debug build: tests of pairing call `CompanionNode.pair(code:)`
    /// (PairingTests, and the end-to-end scenarios with real processes).
    func pairedCompanion(
        _ role: DeviceRole, stateDirectory: String? = nil, mayRecord: Bool = false, standby: StandbyCopy? = nil, pairedAsStandby: Bool = true,
        contextDeltas: Bool = true, contextWriteDelay: Duration? = nil, clock: any WallClock = .system
    ) async throws -> CompanionNode {
        let companion = try await makeCompanion(
            role, endpoint: endpoint, stateDirectory: stateDirectory ?? scratch.path("companion-\(UUID().uuidString)"), standby: standby,
            contextDeltas: contextDeltas, contextWriteDelay: contextWriteDelay, clock: clock)
        let code = try await openCode(role, mayRecord: mayRecord, standby: standby != nil && pairedAsStandby)
        let candidate = try #require(try await store.devices.pairingCandidates().first { $0.code == code.characters })
        _ = try await node.core.access.redeemPairing(
            codeID: candidate.id, deviceID: companion.nodeID, name: companion.configuration.name, role: role).get()
        node.devices.forget()
        try await companion.state.remember(primaryID: node.configuration.nodeID)
        return companion
    }

    /// Shuts the primary down gracefully (Goodbye to every companion), expects it to end
    /// without an error, and removes its files.
    func stop() async {
        do {
            try await serving.stop()
        } catch {
            Issue.record("the primary's services failed: \(error)")
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A companion node in this process with its own state directory (a path in a ``Scratch``).
func makeCompanion(
    _ role: DeviceRole, endpoint: PrimaryEndpoint, stateDirectory: String, standby: StandbyCopy? = nil, contextDeltas: Bool = true,
    contextWriteDelay: Duration? = nil, clock: any WallClock = .system
) async throws -> CompanionNode {
    var configuration = CompanionConfiguration(role: role, name: "Test \(role.rawValue)", stateDirectory: stateDirectory, endpoint: endpoint)
    configuration.backoff = Backoff(first: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.3)
    // As the primary's (above): on the real clock, a handshake that a busy machine slowed past
    // the default 5 s was given up and begun again, and a first context then took over 20 s in CI.
    configuration.deadlineClock = ManualClock()
    configuration.contextDeltas = contextDeltas
    configuration.standby = standby
    configuration.clock = clock
    if let contextWriteDelay { configuration.contextWriteDelay = contextWriteDelay }
    return try await CompanionNode(configuration: configuration)
}

/// The first context a running companion receives, or `nil`.
func firstContext(_ node: CompanionNode) async -> ApplicationContext? {
    await node.firstEvent(within: patience) { if case .context(let c) = $0 { c } else { nil } }
}


/// The Envelope of the valid vector `name` in Protocol/vectors/frames.json.
func protocolVector(_ name: String) throws -> Caresync_V1_Envelope {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Protocol/vectors/frames.json")
    let vectors = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let vector = try #require((vectors["valid"] as? [[String: Any]])?.first { $0["name"] as? String == name }, "no vector \(name)")
    let hex = try #require(vector["hex"] as? String)
    // The frame's payload, after its 4-byte length.
    let bytes = stride(from: 8, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
    return try Caresync_V1_Envelope(serializedBytes: bytes)
}
