import CarePlan
import Foundation
import NIOCore
import NodeIdentity
import RelayProtocol
import SyncProtocol

/// What pairing agreed on.
public struct PairingResult: Sendable, Hashable {
    /// The primary's fingerprint, now pinned.
    public var primaryID: String
    public var primaryName: String
    public var planID: String
    public var role: DeviceRole
    /// Whether the device may record outcomes.
    public var mayRecord: Bool
}

extension CompanionNode {
    /// Pairs with the primary that `configuration.locate` finds, using a code made by
    /// `caresync pair`: proves knowledge of the code bound to both certificates, checks the
    /// primary's proof in return, and only then pins the primary's fingerprint.
    ///
    /// - Throws: `ProtocolError` `PAIRING_FAILED` with the primary's reason (wrong,
    ///   expired or used code, locked), or when the primary cannot prove it knows the code.
    public func pair(code: PairingCode) async throws -> PairingResult {
        guard tls != nil else { throw ProtocolError(.notPermitted, "pairing needs TLS") }
        let endpoint = try await configuration.locate(nil)
        // The proof binds the primary's fingerprint: learn it first (from the TXT record, or
        // from a TLS handshake), then derive the key with no connection waiting on it, since
        // a slow device may take seconds and the primary drops a silent connection in 5 s.
        var primaryID = endpoint.fingerprint ?? ""
        if endpoint.fingerprint == nil { primaryID = try await primaryFingerprint(at: endpoint) }
        let proof = try await PairingProof.derived(code: code, companionFingerprint: nodeID, primaryFingerprint: primaryID)
        // The primary checks the proof against each recent code: give it time to answer.
        let connection = try await tlsConnection(to: endpoint, pinned: primaryID, firstFrame: .seconds(60))
        return try await connection.channel.executeThenClose { inbound, outbound in
            try await outbound.send(.pairRequest(
                role: configuration.role, displayName: configuration.name, softwareVersion: configuration.softwareVersion,
                proof: proof.companion))
            var frames = inbound.makeAsyncIterator()
            guard let answer = try await frames.nextEnvelope() else {
                throw ProtocolError(.notReachable, "the primary closed the connection while pairing")
            }
            switch answer.body {
            case .pairAccept(let accept):
                guard accept.nodeID == primaryID, proof.isPrimary(accept.proof) else {
                    throw ProtocolError(.pairingFailed, "the primary could not prove that it knows the code: "
                        + "another device may be in the middle; nothing was paired")
                }
                guard let role = DeviceRole(wire: accept.role) else {
                    throw ProtocolError(.protocolViolation, "the PairAccept names role \(accept.role), which no companion has")
                }
                try await state.remember(primaryID: primaryID)
                try await state.remember(relays: try RelayRoute.routes(wire: accept.relays))
                return PairingResult(
                    primaryID: primaryID, primaryName: accept.displayName, planID: accept.planID, role: role,
                    mayRecord: accept.mayRecord)
            case .error(let error):
                throw ProtocolError(error.code, error.message)
            default:
                throw ProtocolError.unexpected(answer, "instead of PairAccept")
            }
        }
    }

    /// The fingerprint of the certificate the primary at `endpoint` presents.
    private func primaryFingerprint(at endpoint: PrimaryEndpoint) async throws -> String {
        let probe = try await tlsConnection(to: endpoint, pinned: nil, firstFrame: nil)
        await probe.close(logger: logger)
        guard let fingerprint = probe.certificate?.value else {
            throw ProtocolError(.notReachable, "the primary at \(endpoint) presented no certificate")
        }
        return fingerprint
    }

    /// A connection whose TLS handshake has completed with the primary `pinned` names (any if `nil`).
    private func tlsConnection(to endpoint: PrimaryEndpoint, pinned: String?, firstFrame: Duration?) async throws -> CompanionConnection {
        let connection = try await connect(to: endpoint, pinned: pinned, firstFrame: firstFrame)
        do {
            try await connection.handshake.get()
            return connection
        } catch {
            await connection.close(logger: logger)
            throw Self.impersonation(seen: connection.certificate?.value, pinned: pinned, at: "at \(endpoint)")
                ?? ProtocolError(.notReachable, "no TLS session with the primary at \(endpoint): \(error)")
        }
    }
}
