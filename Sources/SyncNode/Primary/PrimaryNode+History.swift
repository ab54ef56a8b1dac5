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
