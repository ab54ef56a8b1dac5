import CarePlan
import Foundation
import RelayProtocol

/// A companion's request to pair (protocol section 5), as a primary judges it: the protocol
/// version both speak, the role it asks for, its name and its proof that it holds the code.
public struct PairRequest: Sendable {
    /// The highest version both sides speak.
    public var version: UInt32
    public var role: DeviceRole
    /// The name it gives itself; empty if it gives none.
    public var displayName: String
    public var softwareVersion: String
    public var proof: Data

    /// The request a PairRequest makes, checked in the order the primary refuses one at no
    /// cost: first a common version, then a role that can pair.
    ///
    /// - Throws: `VERSION_MISMATCH` without a common version; `NOT_PERMITTED` for a role that
    ///   cannot pair (a primary, or one this version does not know).
    public init(wire: Caresync_V1_PairRequest) throws(ProtocolError) {
        version = try ProtocolVersion.negotiate(offered: wire.protocolVersions)
        guard let role = DeviceRole(wire: wire.role) else {
            throw ProtocolError(.notPermitted, "a node with role \(wire.role) cannot pair with a primary")
        }
        self.role = role
        displayName = wire.displayName
        softwareVersion = wire.softwareVersion
        proof = wire.proof
    }
}

/// A primary's acceptance of a pairing (protocol section 5): the version chosen, who it is,
/// the plan it serves, what the device may do, and its own proof that it holds the code.
public struct PairAcceptance: Sendable {
    public var version: UInt32
    public var nodeID: String
    public var displayName: String
    public var planID: String
    public var role: DeviceRole
    public var mayRecord: Bool
    public var proof: Data
    /// The relays the primary waits on (protocol section 25).
    public var relays: [RelayRoute]

    public init(
        version: UInt32, nodeID: String, displayName: String, planID: String, role: DeviceRole, mayRecord: Bool, proof: Data,
        relays: [RelayRoute] = []
    ) {
        self.version = version
        self.nodeID = nodeID
        self.displayName = displayName
        self.planID = planID
        self.role = role
        self.mayRecord = mayRecord
        self.proof = proof
        self.relays = relays
    }
}

extension Caresync_V1_Envelope {
    /// The primary's acceptance of a pairing, proving it holds the code too.
    public static func pairAccept(_ acceptance: PairAcceptance) -> Self {
        .with {
            $0.pairAccept = .with {
                $0.protocolVersion = acceptance.version
                $0.nodeID = acceptance.nodeID
                $0.displayName = acceptance.displayName
                $0.planID = acceptance.planID
                $0.role = acceptance.role.wire
                $0.mayRecord = acceptance.mayRecord
                $0.proof = acceptance.proof
                $0.relays = acceptance.relays.map(\.wire)
            }
        }
    }
}
