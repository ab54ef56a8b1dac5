import CarePlan
import CarePlanStore
import SyncProtocol

extension PrimaryNode {
    /// A page of the change log for a household device, or the non-fatal error that answers
    /// the request instead: other roles may not read it.
    func history(_ request: HistoryRequest, for peer: PrimaryConnection.Peer) async -> Result<HistoryPage, ProtocolError> {
        guard peer.role == .household else {
            return .failure(ProtocolError(.notPermitted, "only a household device may read the history", fatal: false))
        }
        let limit = min(max(request.limit, 1), 500)
        do {
            let changes = try await store.history(after: request.after, limit: limit + 1)
            return .success(HistoryPage(entries: changes.prefix(limit).map(\.historyEntry), more: changes.count > limit))
        } catch {
            return .failure(ProtocolError(.internal, "could not read the history: \(error)", fatal: false))
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
