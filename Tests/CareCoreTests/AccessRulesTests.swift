import CareCore
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// Each of ``AccessRules``' rules, on a store in a scratch file.
struct AccessRulesTests {
    let empty: ScratchStore
    var store: CarePlanStore { empty.store }
    var clock: ManualClock { empty.clock }
    var access: DeviceAccess { store.core.access }

    init() async throws { empty = try await ScratchStore() }

    /// Opens a pairing code and redeems it as the device `id` would, once its proof matched.
    func pair(
        _ id: String, as role: DeviceRole, code: String = "K7QM2XRD", opening codeRole: DeviceRole? = nil,
        mayRecord: Bool = true, standby: Bool = false
    ) async throws -> Result<PairedDevice, PairingRefusal> {
        try await access.openPairingCode(
            code, role: codeRole ?? role, mayRecord: mayRecord, standby: standby, expiresAt: clock.now.addingTimeInterval(600))
        return try await redeem(id, as: role, code: code)
    }

    func redeem(_ id: String, as role: DeviceRole, code: String? = "K7QM2XRD") async throws -> Result<PairedDevice, PairingRefusal> {
        let candidate = try await store.devices.pairingCandidates().first { $0.code == code }
        return try await access.redeemPairing(codeID: candidate?.id, deviceID: id, name: id, role: role)
    }

    func refusal(_ result: Result<some Any, PairingRefusal>) -> PairingRefusal? {
        if case .failure(let refusal) = result { refusal } else { nil }
    }

    @Test("Access rule 1, a revoked identity never pairs again")
    func revokedIdentity() async throws {
        _ = try await pair("watch-1", as: .watch).get()
        try await access.revokeDevice("watch-1", device: "cli")
        let revision = try await store.revision()
        #expect(refusal(try await pair("watch-1", as: .watch, code: "M2XRDK7Q")) == .revoked)
        #expect(try await store.revision() == revision)
        #expect(try await store.devices.device("watch-1")?.isRevoked == true)
    }

    @Test("Access rule 2, wrong codes lock their own family only")
    func wrongCodesLock() async throws {
        #expect(refusal(try await redeem("w", as: .watch, code: nil)) == .noOpenCode)
        try await access.openPairingCode("K7QM2XRD", role: .watch, mayRecord: true, expiresAt: clock.now.addingTimeInterval(600))
        try await access.openSignInCode("M2XRDK7Q", access: .caregiver, expiresAt: clock.now.addingTimeInterval(600))
        for left in (1..<DeviceAccess.pairingAttempts).reversed() {
            #expect(refusal(try await redeem("w", as: .watch, code: nil)) == .wrongCode(attemptsLeft: left))
        }
        #expect(refusal(try await redeem("w", as: .watch, code: nil)) == .locked)
        #expect(refusal(try await redeem("w", as: .watch)) == .locked)  // its characters are forgotten
        #expect(refusal(try await redeem("w", as: .watch, code: nil)) == .locked)
        let session = try await access.signIn(code: "M2XRDK7Q", sessionID: String(repeating: "a", count: 64), name: "b", lifetime: 60)
        #expect(refusal(session) == nil)
    }

    @Test("Access rule 3, a code is used once, before it expires")
    func usedOnce() async throws {
        _ = try await pair("watch-1", as: .watch).get()
        #expect(refusal(try await redeem("watch-2", as: .watch)) == .used)
        try await access.openPairingCode("M2XRDK7Q", role: .watch, mayRecord: true, expiresAt: clock.now.addingTimeInterval(60))
        clock.advance(by: 61)
        #expect(refusal(try await redeem("watch-3", as: .watch, code: "M2XRDK7Q")) == .expired)
        try await access.openSignInCode("Q9XAK3M7", access: .household, expiresAt: clock.now.addingTimeInterval(600))
        _ = try await access.signIn(code: "Q9XAK3M7", sessionID: String(repeating: "b", count: 64), name: "b", lifetime: 60).get()
        let again = try await access.signIn(code: "Q9XAK3M7", sessionID: String(repeating: "c", count: 64), name: "c", lifetime: 60)
        #expect(refusal(again) == .used)
        #expect(try await store.devices.all().map(\.id) == ["watch-1"])
    }

    @Test("Access rule 4, a code pairs the role it was made for")
    func roleOfTheCode() async throws {
        #expect(refusal(try await pair("w", as: .widget, opening: .watch)) == .wrongRole(codeRole: .watch, deviceRole: .widget))
        #expect(try await store.devices.all().isEmpty)
        _ = try await redeem("w", as: .watch).get()  // the code is still open
    }

    @Test("Access rule 5, grants come from the code")
    func grantsFromTheCode() async throws {
        let reader = try await pair("mum", as: .household, mayRecord: false, standby: false).get()
        let watch = try await pair("watch", as: .watch, code: "M2XRDK7Q", mayRecord: false, standby: true).get()
        let standby = try await pair("dad", as: .household, code: "Q9XAK3M7", mayRecord: true, standby: true).get()
        #expect(!reader.mayRecord && !reader.standby)
        #expect(watch.mayRecord && !watch.standby)
        #expect(standby.mayRecord && standby.standby)
    }

    @Test("Access rule 6, revocation is final and said once")
    func revocationOnce() async throws {
        await #expect(throws: CarePlanStoreError.unknownDevice("nobody")) { try await access.revokeDevice("nobody", device: "cli") }
        _ = try await pair("watch-1", as: .watch).get()
        #expect(try await access.revokeDevice("watch-1", device: "cli")?.kind == .deviceRevoked)
        #expect(try await access.revokeDevice("watch-1", device: "cli") == nil)
        for (index, id) in ["abcdef01" + String(repeating: "0", count: 56), "abcdef02" + String(repeating: "0", count: 56)].enumerated() {
            try await access.openSignInCode("CODE000\(index)", access: .caregiver, expiresAt: clock.now.addingTimeInterval(600))
            _ = try await access.signIn(code: "CODE000\(index)", sessionID: id, name: "b", lifetime: 600).get()
        }
        await #expect(throws: CarePlanStoreError.unknownWebSession("abc")) { try await access.revokeWebSession("abc") }
        await #expect(throws: CarePlanStoreError.self) { try await access.revokeWebSession("abcdef") }  // names two
        #expect(try await access.revokeWebSession("ABCDEF01")?.shortID == "abcdef010000")
        #expect(try await access.revokeWebSession("abcdef01") == nil)
        #expect(try await store.webSessions.all().filter { $0.revokedAt != nil }.count == 1)
    }

    @Test("Access rule 7, last seen never goes back; a session's is written at most once a minute")
    func lastSeen() async throws {
        _ = try await pair("watch-1", as: .watch).get()
        let later = clock.now.addingTimeInterval(300)
        try await access.noteSeen(["watch-1": later])
        try await access.noteSeen(["watch-1": later.addingTimeInterval(-200)])
        #expect(try await store.devices.device("watch-1")?.lastSeen == later)
        let id = String(repeating: "d", count: 64)
        try await access.openSignInCode("K7QM2XRE", access: .caregiver, expiresAt: clock.now.addingTimeInterval(600))
        let signedIn = try await access.signIn(code: "K7QM2XRE", sessionID: id, name: "b", lifetime: 3600).get()
        clock.advance(by: 30)
        _ = try await access.session(id)
        #expect(try await store.webSessions.session(id)?.lastSeen == signedIn.lastSeen)
        clock.advance(by: 31)
        _ = try await access.session(id)
        #expect(try await store.webSessions.session(id)?.lastSeen == clock.now)
    }
}
