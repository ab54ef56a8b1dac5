import CarePlan
import CarePlanStore
import SyncProtocol

extension PrimaryNode {
    /// A page of the change log for a household device; other roles may not read it.
    func history(_ request: Caresync_V1_HistoryRequest, for peer: PrimaryConnection.Peer) async -> Caresync_V1_Envelope {
        guard peer.role == .household else {
            return ProtocolError(.notPermitted, "only a household device may read the history", fatal: false)
                .envelope(inReplyTo: request.requestID)
        }
        let limit = Int(min(max(request.limit, 1), 500))
        do {
            let changes = try await store.history(after: Int(request.afterRevision), limit: limit + 1)
            let page = HistoryPage(entries: changes.prefix(limit).map(\.historyEntry), more: changes.count > limit)
            return .history(page, answering: request.requestID)
        } catch {
            return ProtocolError(.internal, "could not read the history: \(error)", fatal: false).envelope(inReplyTo: request.requestID)
        }
    }
}

extension StoreChange {
    /// The change as a household device sees it.
    var historyEntry: HistoryEntry {
        HistoryEntry(
            revision: revision, kind: kind.rawValue, activityID: activityID, event: event, state: outcome?.state,
            values: outcome?.values ?? [], reason: outcome?.reason, device: device, pairedDevice: pairedDevice,
            contactID: contactID, sharedTo: share?.address, range: share?.days, committedAt: committedAt)
    }
}
