import Logging

extension PrimaryNode {
    /// A household device has kept report `revision`: it is not sent again. A store that
    /// cannot note it now is logged; the report is then sent again on the next connection,
    /// which the device answers again.
    func reportReceived(_ revision: Int, by peer: PrimaryConnection.Peer, logger: Logger) async {
        do {
            let wasWaiting = try await core.shares.delivered(revision: revision, to: peer.nodeID)
            logger.info("a household device has the shared report", metadata: ["revision": "\(revision)", "new": "\(wasWaiting)"])
        } catch {
            logger.warning("could not note that a household device has a report; it will be sent again", metadata: [
                "revision": "\(revision)", "error": "\(error)",
            ])
        }
    }
}
