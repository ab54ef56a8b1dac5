import CarePlan
import CarePlanStore
import Foundation
import SyncProtocol
import Testing
import Waiting

@testable import SyncNode

/// The primary's copy of the paired devices and its "last seen" times, which keep the store
/// off a connection's path.
@Suite struct DeviceLookupTests {
    @Test func theCopyFindsADevicePairedAfterItWasMadeAndFollowsAForget() async throws {
        let primary = try await TestPrimary()
        let directory = DeviceDirectory(store: primary.store)
        #expect(try await directory.device("f".padding(toLength: 64, withPad: "0", startingAt: 0)) == nil)
        // Paired in the store behind the copy's back (the change log not yet followed).
        _ = try await primary.openCode(.widget)
        let codeID = try #require(try await primary.store.devices.pairingCandidates().first?.id)
        let id = String(repeating: "ab", count: 32)
        _ = try await primary.store.core.access.redeemPairing(codeID: codeID, deviceID: id, name: "Widget", role: .widget).get()
        let found = try #require(try await directory.device(id))
        #expect(found.role == .widget && !found.isRevoked)
        #expect(try await directory.device(id)?.name == "Widget", "read again into the copy")
        // Revoked: the copy keeps what it read until told to forget, as the change log does.
        try await primary.store.core.access.revokeDevice(id, device: "test")
        #expect(try await directory.device(id)?.isRevoked == false)
        directory.forget()
        #expect(try await directory.device(id)?.isRevoked == true)
        await primary.stop()
    }

    @Test func lastSeenIsWrittenInBatchesAndWhenThePrimaryStops() async throws {
        let primary = try await TestPrimary(configure: { $0.lastSeenInterval = .milliseconds(50) })
        let watch = try await primary.pairedCompanion(.watch)
        let paired = try #require(try await primary.store.devices.device(watch.nodeID)?.lastSeen)
        let running = Task { await watch.run() }
        #expect(await firstContext(watch) != nil)
        try await waitFor("the connection's time written within the interval") {
            let seen = try await primary.store.devices.device(watch.nodeID)?.lastSeen
            return (seen ?? paired) > paired ? .found(()) : .notYet("last seen \(seen.map { "\($0)" } ?? "never") (paired \(paired))")
        }
        await watch.stop()
        await running.value
        await primary.stop()

        // An interval longer than the test: only the stop writes it.
        let quiet = try await TestPrimary(configure: { $0.lastSeenInterval = .seconds(3600) })
        let widget = try await quiet.pairedCompanion(.widget)
        let pairedAt = try #require(try await quiet.store.devices.device(widget.nodeID)?.lastSeen)
        let store = quiet.store
        let connected = Task { await widget.run() }
        #expect(await firstContext(widget) != nil)
        #expect(try await store.devices.device(widget.nodeID)?.lastSeen == pairedAt, "no commit per connection")
        try await quiet.serving.stop()
        #expect(try await store.devices.device(widget.nodeID)?.lastSeen.map { $0 > pairedAt } == true, "written as the primary stopped")
        await widget.stop()
        await connected.value
        try? FileManager.default.removeItem(at: quiet.directory)
    }
}
