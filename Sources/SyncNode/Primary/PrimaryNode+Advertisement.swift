import SyncProtocol

extension PrimaryNode {
    /// The DNS-SD TXT record a primary advertises (protocol section 17): the versions it
    /// speaks, its node id, its plan and its certificate's fingerprint. No health
    /// information and no patient names: TXT records reach everyone on the network.
    public static func txtRecord(nodeID: String, planID: String, fingerprint: String) -> [String: String] {
        [
            "txtvers": "1", "protocol": ProtocolVersion.supported.map(String.init).joined(separator: ","),
            "node": nodeID, "role": "primary", "plan": planID, "fp": fingerprint,
        ]
    }
}
