import CarePlan
import CarePlanStore
import Foundation
import NodeIdentity
import SyncProtocol

extension PrimaryNode {
    /// Judges a request to pair from the device whose certificate has `fingerprint`: the
    /// acceptance carrying the primary's own proof, or a thrown PAIRING_FAILED.
    ///
    /// A request without a common version or with a role that cannot pair is refused
    /// first, at no cost, as it is read (``PairRequest/init(wire:)``). Of the others, at
    /// most ``PrimaryConfiguration/pairingAttemptsPerMinute`` are judged (``PairingThrottle``). The proof is checked against every code the store
    /// may still recognize, off the store's write lock (each check costs a scrypt
    /// derivation); the store then decides, in one transaction, whether the matched code is
    /// open and counts a failure if not.
    func pair(_ request: PairRequest, from fingerprint: String) async throws -> PairAcceptance {
        let role = request.role
        guard pairingThrottle.admit(at: configuration.clock.now) else {
            throw ProtocolError(.pairingFailed, "too many pairing attempts: try again in a minute")
        }
        var matched: (id: Int, proof: PairingProof)?
        for candidate in try await store.devices.pairingCandidates() {
            guard let code = PairingCode(candidate.code) else { continue }
            let proof = try await PairingProof.derived(
                code: code, companionFingerprint: fingerprint, primaryFingerprint: configuration.nodeID)
            if proof.isCompanion(request.proof) {
                matched = (candidate.id, proof)
                break
            }
        }
        let name = request.displayName.isEmpty ? "unnamed \(role.rawValue)" : request.displayName
        switch try await core.access.redeemPairing(codeID: matched?.id, deviceID: fingerprint, name: name, role: role) {
        case .failure(let refusal):
            metrics.pairings["refused"]?.increment()
            throw ProtocolError(.pairingFailed, refusal.wireMessage)
        case .success(let device):
            devices.forget()
            metrics.pairings["paired"]?.increment()
            logger.notice("paired a companion", metadata: [
                "peer": "\(fingerprint.prefix(16))", "role": "\(role.rawValue)", "name": "\(name)",
            ])
            // The store pairs only with the code whose proof matched.
            guard let matched else { throw ProtocolError(.internal, "paired without a matching code") }
            let info = try await store.plan.info()
            return PairAcceptance(
                version: request.version, nodeID: configuration.nodeID, displayName: configuration.name, planID: info.planID,
                role: device.role, mayRecord: device.mayRecord, proof: matched.proof.primary,
                relays: relays?.routes ?? [])
        }
    }
}

extension PairingRefusal {
    /// The refusal as the device's user reads it (protocol section 5): what happened, and
    /// for a code that cannot serve, how to get one that can.
    var wireMessage: String {
        switch self {
        case .noOpenCode: "\(self): make one with `caresync pair`"
        case .locked: "too many wrong codes: pairing is locked until a new code is made with `caresync pair`"
        case .expired, .used: "\(self): make a new one with `caresync pair`"
        case .wrongCode, .wrongRole, .revoked: description
        }
    }
}
