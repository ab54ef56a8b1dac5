import CarePlan
import Foundation
import NIOCore
import SyncProtocol

extension CompanionNode {
    /// A page of the primary's change log after `revision` (household devices only).
    ///
    /// - Throws: `ProtocolError` `NOT_REACHABLE` when no primary is connected or it does
    ///   not answer within the reply timeout; the primary's Error (`NOT_PERMITTED` for
    ///   other roles) as it sent it.
    public func history(after revision: Int, limit: Int = 100) async throws -> HistoryPage {
        guard let current = session.withLock({ $0 }) else {
            throw ProtocolError(.notReachable, "no primary is connected to read the history from")
        }
        let requestID = UUID().uuidString.lowercased()
        replies.expect(requestID)
        try current.send(.historyRequest(after: revision, limit: limit, requestID: requestID))
        switch await replies.wait(requestID, timeout: configuration.replyTimeout, clock: configuration.clock) {
        case .history(let page): return try page.get()
        case .refused(let refusal): throw refusal
        case .retryLater(let message): throw ProtocolError(.internal, message, fatal: false)
        case .reply, .measurements, nil: throw ProtocolError(.notReachable, "the primary did not answer the history request")
        }
    }
}
