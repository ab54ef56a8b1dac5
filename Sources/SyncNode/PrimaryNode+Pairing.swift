import CarePlanStore
import Foundation
import NodeIdentity
import Synchronization
import SyncProtocol

extension PrimaryNode {
    /// Judges a PairRequest from the device whose certificate has `fingerprint`: a
    /// PairAccept carrying the primary's own proof, or an Error PAIRING_FAILED.
    ///
    /// At most ``PairingThrottle/limit`` attempts a minute are judged. The proof is checked
    /// against every code the store may still recognize, off the store's write lock (each
    /// check costs a scrypt derivation); the store then decides,
    /// in one transaction, whether the matched code is open and counts a failure if not.
    func pair(_ request: Caresync_V1_PairRequest, from fingerprint: String) async throws -> Caresync_V1_Envelope {
        let version = try ProtocolVersion.negotiate(offered: request.protocolVersions)
        guard pairingThrottle.admit(at: configuration.now()) else {
            throw ProtocolError(.pairingFailed, "too many pairing attempts: try again in a minute")
        }
        guard let role = DeviceRole(wire: request.role) else {
            throw ProtocolError(.notPermitted, "a node with role \(request.role) cannot pair with a primary")
        }
        var matched: (id: Int, proof: PairingProof)?
        for candidate in try store.pairingCandidates() {
            guard let code = PairingCode(candidate.code) else { continue }
            let proof = try PairingProof(code: code, companionFingerprint: fingerprint, primaryFingerprint: configuration.nodeID)
            if proof.isCompanion(request.proof) {
                matched = (candidate.id, proof)
                break
            }
        }
        let name = request.displayName.isEmpty ? "unnamed \(role.rawValue)" : request.displayName
        switch try store.redeemPairing(codeID: matched?.id, deviceID: fingerprint, name: name, role: role) {
        case .failure(let refusal):
            throw ProtocolError(.pairingFailed, refusal.description)
        case .success(let device):
            let info = try store.planInfo()
            return .with {
                $0.pairAccept = .with {
                    $0.protocolVersion = version
                    $0.nodeID = configuration.nodeID
                    $0.displayName = configuration.name
                    $0.planID = info.planID
                    $0.role = device.role.wire
                    $0.mayRecord = device.mayRecord
                    $0.proof = matched!.proof.primary
                }
            }
        }
    }

    /// A page of the change log for a household device; other roles may not read it.
    func history(_ request: Caresync_V1_HistoryRequest, for peer: PrimaryConnection.Peer) async -> Caresync_V1_Envelope {
        guard peer.role == .household else {
            return ProtocolError(.notPermitted, "only a household device may read the history", fatal: false)
                .envelope(inReplyTo: request.requestID)
        }
        let limit = Int(min(max(request.limit, 1), 500))
        do {
            let changes = try store.history(after: Int(request.afterRevision), limit: limit + 1)
            return .with {
                $0.historyPage = .with {
                    $0.entries = changes.prefix(limit).map(\.historyEntry)
                    $0.more = changes.count > limit
                    $0.requestID = request.requestID
                }
            }
        } catch {
            return ProtocolError(.internal, "could not read the history: \(error)", fatal: false).envelope(inReplyTo: request.requestID)
        }
    }
}

extension StoreChange {
    /// The change as a household device sees it.
    var historyEntry: Caresync_V1_HistoryEntry {
        .with {
            $0.revision = UInt64(revision)
            $0.kind = kind.rawValue
            $0.activityID = activityID ?? ""
            $0.day = event?.day.description ?? ""
            $0.occurrence = UInt32(event?.occurrence ?? 0)
            if let outcome {
                $0.state = outcome.state.wire
                $0.values = outcome.values.map(\.wire)
                $0.reason = outcome.reason ?? ""
            }
            $0.device = device
            $0.pairedDevice = pairedDevice ?? ""
            $0.committedAtMs = committedAt.millisecondsSince1970
        }
    }
}

/// Bounds the pairing attempts the primary judges, since each costs it scrypt derivations.
final class PairingThrottle: Sendable {
    /// Attempts judged per minute, whatever their source.
    static let limit = 10
    private let recent = Mutex<[Date]>([])

    /// Whether an attempt at `now` may be judged; counts it if so.
    func admit(at now: Date) -> Bool {
        recent.withLock { recent in
            recent.removeAll { now.timeIntervalSince($0) >= 60 }
            guard recent.count < Self.limit else { return false }
            recent.append(now)
            return true
        }
    }
}
