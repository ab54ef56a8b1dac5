import CarePlan
import Synchronization
import SyncProtocol
import Clocks
import Waiting

/// A completion in the companion's outbox, held in memory beside its row on disk, with all
/// the node knows about it until it leaves: whether its row is written yet, whether the
/// caller of `complete` still waits for its answer, and the answer once it came (reported
/// once, even if a lost connection makes the sender deliver it again before its removal).
final class OutboxEntry: Sendable {
    /// The completion, kept as it goes on the wire (and as its row holds it).
    let completion: CompletionMessage
    private let answer = Eventual<CompletionResult>()
    /// What its caller waits for: the answer, or `nil` once the connection it was sent on ended.
    private let settled = Eventual<CompletionResult?>()
    private let row = Eventual<Void>()
    private let awaited: Atomic<Bool>

    /// - Parameter awaited: whether a caller waits for the answer (not for entries read
    ///   back from disk at start, whose rows are written).
    init(_ completion: CompletionMessage, awaited: Bool) {
        self.completion = completion
        self.awaited = Atomic(awaited)
        if !awaited { _ = row.resolve(.success(())) }
    }

    /// Its row has been committed (`nil`), or could not be (the error): the entry then leaves
    /// the outbox without a row to remove.
    func rowWritten(_ failure: (any Error)? = nil) {
        _ = row.resolve(failure.map { .failure($0) } ?? .success(()))
    }

    /// Whether its row is on disk, once its commit has ended.
    func hasRow() async -> Bool {
        (try? await row.value) != nil
    }

    var messageID: String { completion.messageID }

    /// Whether a caller still waits: if not, the completion is sent marked as queued
    /// (WatchConnectivity's `transferUserInfo`).
    var isAwaited: Bool { awaited.load(ordering: .relaxed) }

    /// The caller has its answer or gave up waiting.
    func stopAwaiting() {
        awaited.store(false, ordering: .relaxed)
    }

    /// Whether the primary has answered it.
    var isAnswered: Bool { answer.isResolved }

    /// Records the primary's answer; `true` the first time, when it is news to report.
    func answered(_ result: CompletionResult) -> Bool {
        settled.resolve(.success(result))
        return answer.resolve(.success(result))
    }

    /// The connection it may have been sent on ended: its caller stops waiting (the answer,
    /// if one comes on a later connection, is still reported).
    func connectionEnded() {
        settled.resolve(.success(nil))
    }

    /// The answer, or `nil` if none comes within `timeout` or the connection ends first.
    func answer(within timeout: Duration, clock: any WallClock) async -> CompletionResult? {
        await settled.value(within: timeout, clock: clock) ?? nil
    }
}
