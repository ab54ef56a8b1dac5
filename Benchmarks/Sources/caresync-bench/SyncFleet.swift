import SyncNode
import Synchronization

/// What the benchmark knows of each companion, from its events.
final class Fleet: Sendable {
    struct Member: Sendable {
        var connected = false
        /// The newest context revision held, and when it first arrived.
        var revision = -1
        var reachedAt = ContinuousClock.now
        var contexts = 0
        /// Disconnections and errors.
        var problems = 0
        var lastProblem: String?
        /// Measurements the primary has answered (stored, duplicate or refused).
        var measured = 0
        /// Its event stream ended: the node has stopped.
        var finished = false
    }

    let count: Int
    private let state: Mutex<[Member]>

    init(count: Int) {
        self.count = count
        state = Mutex(Array(repeating: Member(), count: count))
    }

    var members: [Member] { state.withLock { $0 } }

    /// Follows companion `index`'s events until its node stops.
    func follow(_ index: Int, _ events: AsyncStream<CompanionEvent>) async {
        for await event in events {
            let now = ContinuousClock.now
            state.withLock { members in
                switch event {
                case .connected:
                    members[index].connected = true
                case .context(let context):
                    members[index].contexts += 1
                    if context.revision > members[index].revision {
                        members[index].revision = context.revision
                        members[index].reachedAt = now
                    }
                case .disconnected(let reason):
                    members[index].connected = false
                    members[index].problems += 1
                    members[index].lastProblem = reason
                case .error(let code, let message):
                    members[index].problems += 1
                    members[index].lastProblem = "\(code): \(message)"
                case .measurements(let result):
                    members[index].measured += result.stored + result.duplicates + result.refused.count
                case .reply, .reminder, .report, .alerts, .standby, .backupStatus:
                    break
                }
            }
        }
        state.withLock { $0[index].finished = true }
    }

    /// Waits until `condition` holds for the members; false if `timeout` passes first.
    func wait(within timeout: Duration, until condition: ([Member]) -> Bool) async -> Bool {
        await poll(within: timeout) { state.withLock { condition($0) } }
    }
}

/// Checks `condition` every millisecond until it holds (true) or `timeout` passes (false).
/// Timings come from the events themselves, so the polling does not blur them.
func poll(within timeout: Duration, until condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
