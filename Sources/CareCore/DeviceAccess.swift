import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// Who may reach the record: pairing codes and the devices paired with them, sign-in codes
/// and the browser sessions made with them, and revoking either.
public struct DeviceAccess: Sendable {
    let store: CarePlanStore

    /// Opens a single-use pairing code for a device of `role` (a household device with
    /// `standby` keeps a copy of the store and the primary's identity); its handle, which
    /// shows it again to the care app's session `shownTo` only.
    @discardableResult
    public func openPairingCode(
        _ code: String, role: DeviceRole, mayRecord: Bool, standby: Bool = false, shownTo: String? = nil, expiresAt: Date
    ) async throws(CarePlanStoreError) -> String {
        try await store.devices.openPairingCode(code, role: role, mayRecord: mayRecord, standby: standby, shownTo: shownTo, expiresAt: expiresAt)
    }

    /// Pairs the device `deviceID` with the code `codeID` proved, or says why not.
    public func redeemPairing(
        codeID: Int?, deviceID: String, name: String, role: DeviceRole
    ) async throws(CarePlanStoreError) -> Result<PairedDevice, PairingRefusal> {
        try await store.devices.redeemPairing(codeID: codeID, deviceID: deviceID, name: name, role: role)
    }

    /// Revokes the paired device `id` (`device` is who revoked it); `nil` if it was already.
    @discardableResult
    public func revokeDevice(_ id: String, device: String) async throws(CarePlanStoreError) -> StoreChange? {
        try await store.devices.revoke(id, device: device)
    }

    /// Opens a single-use sign-in code for the care app; its handle, which shows it again to
    /// the care app's session `shownTo` only.
    @discardableResult
    public func openSignInCode(_ code: String, access: WebAccess, shownTo: String? = nil, expiresAt: Date) async throws(CarePlanStoreError) -> String {
        try await store.webSessions.openSignInCode(code, access: access, shownTo: shownTo, expiresAt: expiresAt)
    }

    /// Makes a browser session with `code`, or says why not.
    public func signIn(
        code: String, sessionID: String, name: String, lifetime: TimeInterval
    ) async throws(CarePlanStoreError) -> Result<WebSession, PairingRefusal> {
        try await store.webSessions.signIn(code: code, sessionID: sessionID, name: name, lifetime: lifetime)
    }

    /// Ends the browser session `id` (signing out).
    public func endWebSession(_ id: String) async throws(CarePlanStoreError) {
        try await store.webSessions.end(id)
    }

    /// Revokes the browser session whose id starts with `prefix`; `nil` if none.
    @discardableResult
    public func revokeWebSession(_ prefix: String) async throws(CarePlanStoreError) -> WebSession? {
        try await store.webSessions.revoke(prefix)
    }
}
