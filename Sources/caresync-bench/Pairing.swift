import CarePlanStore
import Foundation
import NodeIdentity
import SyncNode

/// Pairs `companion` with the running primary of `store` through the real exchange: a
/// code opened in the store, redeemed by the companion over TLS.
func pair(_ companion: CompanionNode, through store: CarePlanStore) async throws {
    let code = PairingCode.random()
    let role = DeviceRole(wire: companion.configuration.role) ?? .watch
    try store.openPairingCode(code.characters, role: role, mayRecord: true, expiresAt: Date().addingTimeInterval(600))
    _ = try await companion.pair(code: code)
}
