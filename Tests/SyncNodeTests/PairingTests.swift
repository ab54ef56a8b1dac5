import CareCore
import CarePlan
import CarePlanStore
import Foundation
import NodeIdentity
import SyncNode
import SyncProtocol
import Testing

/// Pairing codes, device roles and revocation, against a real primary over TLS.
@Suite(.serialized) struct PairingTests {
    let scratch = Scratch()

    /// The first Error a running companion reports, as (code, message).
    func firstError(_ node: CompanionNode) async -> (String, String)? {
        await node.firstEvent(within: patience) { if case .error(let code, let message) = $0 { (code, message) } else { nil } }
    }

    /// The pairing error for `code`, or `nil` if it paired.
    func refusal(pairing node: CompanionNode, with code: PairingCode) async -> ProtocolError? {
        do {
            _ = try await node.pair(code: code)
            return nil
        } catch {
            return error as? ProtocolError
        }
    }

    @Test func pairingPinsEachSideAndTheDeviceIsListed() async throws {
        let primary = try await TestPrimary()
        let watch = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: scratch.path("watch"))
        #expect(watch.knownPrimaryID == nil)
        let result = try await watch.pair(code: try primary.openCode(.watch))
        #expect(result.primaryID == primary.node.configuration.nodeID)
        #expect(watch.knownPrimaryID == primary.node.configuration.nodeID)
        #expect(result.role == .watch && result.mayRecord)
        let device = try #require(try await primary.store.devices.device(watch.nodeID))
        #expect(device.role == .watch && device.name == "Test watch" && !device.isRevoked)
        #expect(try await primary.store.history().last?.kind == .devicePaired)
        await primary.stop()
    }

    @Test func anUnpairedDeviceIsRefusedAfterTheHandshake() async throws {
        let primary = try await TestPrimary()
        let paired = try await primary.pairedCompanion(.watch)
        // The paired watch's state with a new identity: it knows the primary's fingerprint
        // (so TLS succeeds), but the primary never paired its certificate.
        let stranger = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: try strangerState(copying: paired))
        #expect(stranger.nodeID != paired.nodeID && stranger.knownPrimaryID == paired.knownPrimaryID)
        let running = Task { await stranger.run() }
        let error = try #require(await firstError(stranger))
        #expect(error.0 == "NOT_PAIRED")
        #expect(error.1.contains("not paired with this primary"))
        await running.value  // a final refusal: run() returns by itself
        #expect(try await primary.store.devices.device(stranger.nodeID) == nil)
        await primary.stop()
    }

    @Test func wrongExpiredAndReusedCodesAreRefused() async throws {
        let primary = try await TestPrimary()
        let code = try await primary.openCode(.watch)
        let wrong = try #require(PairingCode(code.characters == "00000000" ? "11111111" : "00000000"))
        let first = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: scratch.path("first"))
        let wrongRefusal = try #require(await refusal(pairing: first, with: wrong))
        #expect(wrongRefusal.code == .pairingFailed && wrongRefusal.message.contains("wrong pairing code (4 attempts left)"))
        #expect(first.knownPrimaryID == nil)

        #expect(await refusal(pairing: first, with: code) == nil)
        let second = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: scratch.path("second"))
        let reused = try #require(await refusal(pairing: second, with: code))
        #expect(reused.message.contains("already used"))

        let expiring = try await primary.openCode(.watch, expiresIn: -1)
        let expired = try #require(await refusal(pairing: second, with: expiring))
        #expect(expired.message.contains("expired"))

        let widgetCode = try await primary.openCode(.widget)
        let wrongRole = try #require(await refusal(pairing: second, with: widgetCode))
        #expect(wrongRole.message.contains("pairs a widget, not a watch"))
        #expect(try await primary.store.devices.all().map(\.id) == [first.nodeID])
        await primary.stop()
    }

    @Test func tooManyWrongCodesLockPairing() async throws {
        let primary = try await TestPrimary()
        let code = try await primary.openCode(.widget)
        let attacker = try await makeCompanion(.widget, endpoint: primary.endpoint, stateDirectory: scratch.path("attacker"))
        var messages: [String] = []
        for guess in 0..<DeviceAccess.pairingAttempts {
            let wrong = try #require(PairingCode("ZZZZZZZ\(guess)"))
            messages.append(try #require(await refusal(pairing: attacker, with: wrong)).message)
        }
        #expect(messages.first?.contains("4 attempts left") == true)
        #expect(messages.last?.contains("pairing is locked") == true)
        // Even the right code no longer works: a new one must be made.
        let late = try await makeCompanion(.widget, endpoint: primary.endpoint, stateDirectory: scratch.path("late"))
        #expect(try #require(await refusal(pairing: late, with: code)).message.contains("locked"))
        #expect(await refusal(pairing: late, with: try primary.openCode(.widget)) == nil)
        await primary.stop()
    }

    /// A relay that terminates TLS on both sides cannot pair the companion with the
    /// primary, even with the right code: each side's proof binds the relay's certificate.
    @Test func aDeviceInTheMiddleCannotPairInTheUsersPlace() async throws {
        let primary = try await TestPrimary()
        let relay = try await RelayInTheMiddle(to: primary.port)
        let watch = try await makeCompanion(
            .watch, endpoint: PrimaryEndpoint(host: "127.0.0.1", port: relay.port), stateDirectory: scratch.path("watch"))
        let code = try await primary.openCode(.watch)
        let refused = try #require(await refusal(pairing: watch, with: code))
        #expect(refused.code == .pairingFailed && refused.message.contains("wrong pairing code"))
        #expect(watch.knownPrimaryID == nil)
        #expect(try await primary.store.devices.all().isEmpty)
        // The same code still pairs the watch directly.
        let direct = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: scratch.path("direct"))
        #expect(await refusal(pairing: direct, with: code) == nil)
        await relay.stop()
        await primary.stop()
    }

    @Test func pairingAttemptsAreThrottled() async throws {
        let primary = try await TestPrimary()
        let attacker = try await makeCompanion(.watch, endpoint: primary.endpoint, stateDirectory: scratch.path("attacker"))
        var last: ProtocolError?
        for guess in 0...10 {
            last = await refusal(pairing: attacker, with: try #require(PairingCode("YYYYYY\(guess % 10)\(guess / 10)")))
        }
        #expect(last?.message == "too many pairing attempts: try again in a minute")
        await primary.stop()
    }

    @Test func aRevokedDeviceIsCutOffAtOnceAndCannotReturn() async throws {
        let primary = try await TestPrimary()
        let watch = try await primary.pairedCompanion(.watch)
        let running = Task { await watch.run() }
        #expect(await firstContext(watch) != nil)
        try await primary.store.core.access.revokeDevice(watch.nodeID, device: "test")
        let error = try #require(await firstError(watch))
        #expect(error.0 == "NOT_PAIRED" && error.1.contains("revoked"))
        await running.value  // NOT_PAIRED on reconnection is final
        #expect(!watch.isConnected)
        #expect(try await primary.store.history().last?.kind == .deviceRevoked)
        // Pairing again with the same identity is refused too.
        let again = try #require(await refusal(pairing: watch, with: try primary.openCode(.watch)))
        #expect(again.message.contains("revoked"))
        await primary.stop()
    }

    @Test func aHouseholdDeviceReadsTheHistoryAndRecordsOnlyIfGranted() async throws {
        let primary = try await TestPrimary()
        let granted = try await primary.pairedCompanion(.household, mayRecord: true)
        let running = Task { await granted.run() }
        let context = try #require(await firstContext(granted))
        let key = context.incomplete[0].key
        guard case .accepted(let revision, _, _) = try await granted.complete(key) else {
            Issue.record("a granted household device could not record")
            return
        }
        let page = try await granted.history(after: 0)
        #expect(page.entries.last?.revision == revision)
        #expect(page.entries.contains { $0.kind == "devicePaired" && $0.device == granted.nodeID })
        #expect(page.entries.last?.activityID == key.activityID && page.entries.last?.state == .completed)

        let watch = try await primary.pairedCompanion(.watch)
        let watching = Task { await watch.run() }
        _ = await firstContext(watch)
        await #expect(throws: ProtocolError.self) { try await watch.history(after: 0) }
        await watch.stop()
        await watching.value
        await granted.stop()
        await running.value
        await primary.stop()
    }

    @Test func aPrimaryWithAnotherCertificateIsRefusedByTheCompanion() async throws {
        let primary = try await TestPrimary()
        let state = scratch.path("companion")
        _ = try await primary.pairedCompanion(.watch, stateDirectory: state)
        await primary.stop()
        // Another primary (its own identity) where the watch looks for its primary.
        let impostor = try await TestPrimary()
        let watch = try await makeCompanion(.watch, endpoint: impostor.endpoint, stateDirectory: state)
        let running = Task { await watch.run() }
        let error = try #require(await firstError(watch))
        #expect(error.0 == "NOT_PAIRED")
        #expect(error.1.contains("presented certificate \(NodeIdentity.display(impostor.node.configuration.nodeID))"))
        #expect(!watch.isConnected)
        #expect(try await impostor.store.revision() == impostor.store.history().last?.revision)
        await watch.stop()
        await running.value
        await impostor.stop()
    }

    /// A copy of `paired`'s state directory without its identity.
    private func strangerState(copying paired: CompanionNode) throws -> String {
        let copy = scratch.path("stranger")
        try FileManager.default.copyItem(atPath: paired.configuration.stateDirectory, toPath: copy)
        try FileManager.default.removeItem(atPath: copy + "/identity.pem")
        return copy
    }
}
