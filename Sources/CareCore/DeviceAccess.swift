import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// Who may reach the record: pairing codes and the devices paired with them, sign-in codes
/// and the browser sessions made with them, and revoking either, judged by ``AccessRules``.
public struct DeviceAccess: Sendable {
    let store: CarePlanStore

    /// Wrong pairing codes allowed across the open pairing codes before pairing locks.
    public static let pairingAttempts = 5
    /// Wrong sign-in codes allowed across the open sign-in codes, from every browser
    /// together, before web sign-in locks (the care app also limits each source).
    public static let signInAttempts = 20

    /// Opens a single-use pairing code for a device of `role` (a household device with
    /// `standby` keeps a copy of the store and the primary's identity); its handle, which
    /// shows it again to the care app's session `shownTo` only.
    @discardableResult
    public func openPairingCode(
        _ code: String, role: DeviceRole, mayRecord: Bool, standby: Bool = false, shownTo: String? = nil, expiresAt: Date
    ) async throws(CarePlanStoreError) -> String {
        try await store.transaction { record in
            try record.access.keepCode(
                code, role: role.rawValue, mayRecord: mayRecord || role != .household, standby: standby && role == .household,
                shownTo: shownTo, expiresAt: expiresAt)
        }
    }

    /// Pairs the device `deviceID` with the code `codeID` proved, or says why not.
    public func redeemPairing(
        codeID: Int?, deviceID: String, name: String, role: DeviceRole
    ) async throws(CarePlanStoreError) -> Result<PairedDevice, PairingRefusal> {
        try await store.transaction { record in
            try AccessRules.pair(record, codeID: codeID, deviceID: deviceID, name: name, role: role)
        }
    }

    /// Revokes the paired device `id` (`device` is who revoked it): it is refused from now
    /// on, and a primary serving it closes its connection when it sees the change; `nil` if
    /// it was already.
    ///
    /// - Throws: ``CarePlanStoreError/unknownDevice(_:)``.
    @discardableResult
    public func revokeDevice(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await store.transaction { record in
            guard let paired = try record.access.device(id) else { throw CarePlanStoreError.unknownDevice(id) }
            return paired.isRevoked ? nil : try record.access.keepRevoked(id, device: device)
        }
    }

    /// Notes when devices were last seen (connected or disconnected), all in one commit; a
    /// time earlier than the one kept is ignored.
    public func noteSeen(_ seen: [String: Date]) async throws(CarePlanStoreError) {
        guard !seen.isEmpty else { return }
        try await store.transaction { record in
            for (id, instant) in seen {
                guard let device = try record.access.device(id), device.lastSeen.map({ instant > $0 }) ?? true else { continue }
                try record.access.keepSeen(device: id, at: instant)
            }
        }
    }

    /// Opens a single-use sign-in code for the care app; its handle, which shows it again to
    /// the care app's session `shownTo` only. Wrong sign-in codes count toward a lock of
    /// their own (``signInAttempts``), never toward pairing's.
    @discardableResult
    public func openSignInCode(_ code: String, access: WebAccess, shownTo: String? = nil, expiresAt: Date) async throws(CarePlanStoreError) -> String {
        try await store.transaction { record in
            try record.access.keepCode(code, role: access.rawValue, mayRecord: access.mayRecord, standby: false, shownTo: shownTo, expiresAt: expiresAt)
        }
    }

    /// Signs a browser in with `code` (its characters, normalized): the code is used up and
    /// a session kept under `sessionID`, valid for `lifetime`; or says why not.
    public func signIn(
        code: String, sessionID: String, name: String, lifetime: TimeInterval
    ) async throws(CarePlanStoreError) -> Result<WebSession, PairingRefusal> {
        try await store.transaction { record in
            try AccessRules.signIn(record, code: code, sessionID: sessionID, name: name, lifetime: lifetime)
        }
    }

    /// The browser session `id` if it still lets its browser in, noting that it was seen.
    public func session(_ id: String) async throws(CarePlanStoreError) -> WebSession? {
        let now = store.now()
        guard let session = try await store.webSessions.session(id), session.isValid(at: now) else { return nil }
        if session.lastSeen.map({ now.timeIntervalSince($0) >= AccessRules.sessionSeenInterval }) ?? true {
            try await store.transaction { record in try record.sessions.keepSeen(id) }
        }
        return session
    }

    /// Ends the browser session `id` (signing out); nothing happens if it had ended.
    public func endWebSession(_ id: String) async throws(CarePlanStoreError) {
        try await store.transaction { record in
            guard try record.sessions.session(id)?.revokedAt == nil else { return }
            try record.sessions.keepEnded(id)
        }
    }

    /// Revokes the browser session whose id starts with `prefix`; `nil` if it had ended.
    ///
    /// - Throws: ``CarePlanStoreError/unknownWebSession(_:)``, or
    ///   ``CarePlanStoreError/ambiguousDevice(_:matches:)`` when `prefix` names several.
    @discardableResult
    public func revokeWebSession(_ prefix: String) async throws(CarePlanStoreError) -> WebSession? {
        try await store.transaction { record in try AccessRules.revokeWebSession(record, prefix) }
    }
}
