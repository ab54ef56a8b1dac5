import CareBackup
import CarePlan
import Foundation
import SyncProtocol

extension CompanionSession {
    /// Keeps a standby step on disk, then tells the primary and reports it. A step that does not
    /// apply ends the connection: the next one starts from what the copy holds.
    func keep(_ step: StandbyStep, _ session: CompanionNode.SessionHandle) throws {
        guard let copy = configuration.standby else { throw ProtocolError(.internal, "a standby step arrived, and this device keeps no copy") }
        do {
            try copy.apply(step)
        } catch {
            if case .damaged = error { throw ProtocolError(.internal, "the standby copy could not be kept: \(error)") }
            throw ProtocolError.malformed("\(error)")
        }
        try session.send(.standbyApplied(revision: step.revision, sha256: step.sha256))
        node.eventSink.yield(.standby(StandbyUpdate(
            revision: step.revision, pages: step.pages.count, bytes: step.pageCount * step.pageSize, committedAt: step.committedAt,
            appliedAt: Date())))
    }
}
