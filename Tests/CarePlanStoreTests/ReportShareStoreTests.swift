import CarePlanStore
import CarePlan
@testable import CarePlanStore
import Foundation
import Testing

/// Shares of the care report in the store: recorded in the history with their recipient and
/// days, and kept for a household device until it has them.
struct ReportShareStoreTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let week = CalendarDay("2026-11-16")!...CalendarDay("2026-11-22")!

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        try await store.core.plan.load(Plan(title: "Test", timeZone: .gmt, activities: [try intervention("apple")]), effectiveFrom: monday, device: "test")
    }

    /// Pairs a device of `role` under fingerprint `id`.
    func pair(_ id: String, _ role: DeviceRole, name: String) async throws {
        let code = "CODE-\(id.prefix(4))"
        try await store.core.access.openPairingCode(code, role: role, mayRecord: false, expiresAt: Date().addingTimeInterval(60))
        let candidate = try #require(try await store.devices.pairingCandidates().first { $0.code == code })
        _ = try await store.core.access.redeemPairing(codeID: candidate.id, deviceID: id, name: name, role: role).get()
    }

    func delivery(to device: String, _ content: String = "<html/>") -> ReportDelivery {
        ReportDelivery(device: device, fileName: "care-report.html", mediaType: "application/xhtml+xml", content: Array(content.utf8), days: week)
    }

    @Test func anEmailedShareIsInTheHistoryWithItsContactAddressAndDays() async throws {
        let share = ReportShare(recipient: .contact("dr-ruiz"), address: "maria.ruiz@example.org", days: week)
        let change = try await store.core.shares.recordShare(share, device: "carer")
        let logged = try #require(try await store.history(after: change.revision - 1).last)
        #expect(logged.kind == .reportShared && logged.device == "carer" && logged.contactID == "dr-ruiz")
        #expect(logged.share == share)
        // And in the JSON `caresync history --json` prints.
        let json = String(decoding: try JSONEncoder().encode(logged), as: UTF8.self)
        #expect(json.contains(#""share":{"#) && json.contains(#""from":"2026-11-16""#) && json.contains(#""contact":"dr-ruiz""#))
        #expect(try JSONDecoder().decode(StoreChange.self, from: Data(json.utf8)).share == share)
    }

    @Test func aReportWaitsForItsHouseholdDeviceUntilItHasIt() async throws {
        let (kitchen, phone) = (String(repeating: "a1", count: 32), String(repeating: "b2", count: 32))
        try await pair(kitchen, .household, name: "Kitchen tablet")
        try await pair(phone, .household, name: "Phone")
        let first = try await store.core.shares.share(delivery(to: kitchen, "first"), device: "carer")
        let second = try await store.core.shares.share(delivery(to: kitchen, "second"), device: "carer")
        #expect(first.share == ReportShare(recipient: .device(kitchen), address: "Kitchen tablet", days: week))
        #expect(first.pairedDevice == kitchen)
        let waiting = try await store.shares.pending(for: kitchen)
        #expect(waiting.map(\.revision) == [first.revision, second.revision])
        #expect(waiting.map { String(decoding: $0.content, as: UTF8.self) } == ["first", "second"])
        #expect(waiting[0].days == week && waiting[0].fileName == "care-report.html")
        #expect(try await store.shares.pending(for: phone).isEmpty)

        // Another device's acknowledgement changes nothing; the right one, once.
        #expect(try await !store.core.shares.delivered(revision: first.revision, to: phone))
        #expect(try await store.core.shares.delivered(revision: first.revision, to: kitchen))
        #expect(try await !store.core.shares.delivered(revision: first.revision, to: kitchen))
        #expect(try await store.shares.pending(for: kitchen).map(\.revision) == [second.revision])
        // The history still says what was shared with whom.
        let shares = try await store.history(after: 0).filter { $0.kind == .reportShared }
        #expect(shares.map(\.share?.address) == ["Kitchen tablet", "Kitchen tablet"])
    }

    @Test func onlyAPairedHouseholdDeviceThatWasNotRevokedReceivesReports() async throws {
        let (watch, household) = (String(repeating: "c3", count: 32), String(repeating: "d4", count: 32))
        try await pair(watch, .watch, name: "Watch")
        try await pair(household, .household, name: "Hall")
        await #expect(throws: CarePlanStoreError.cannotReceiveReports("Watch", reason: "it is paired as a watch")) {
            try await store.core.shares.share(delivery(to: watch), device: "carer")
        }
        await #expect(throws: CarePlanStoreError.unknownDevice("ee")) { try await store.core.shares.share(delivery(to: "ee"), device: "carer") }
        _ = try await store.core.access.revokeDevice(household, device: "carer")
        await #expect(throws: CarePlanStoreError.cannotReceiveReports("Hall", reason: "it was revoked")) {
            try await store.core.shares.share(delivery(to: household), device: "carer")
        }
        #expect(try await store.history(after: 0).allSatisfy { $0.kind != .reportShared })
    }
}
