import CareBackup
import CarePlan
import CarePlanStore
import Foundation
import Logging
import Synchronization
import Waiting

/// The primary's side of standby copies: the store's image, made once per change and shared
/// by every standby connection; when each change was committed, for the copies' lag; and a
/// wake for each connection when the store changes.
///
/// A change is a batch of the change log read by the feed, or a write the log does not record
/// that this primary makes (measurements stored): each starts a new *generation*, and the
/// image is made again at most once per generation.
final class StandbySource: Sendable {
    private struct State {
        var generation = 0
        /// When each revision of the change log was committed.
        var commits: [Int: Date] = [:]
        /// When the oldest write of each generation was committed.
        var changedAt: [Int: Date] = [:]
        /// The image of a generation, made or being made.
        var image: (generation: Int, task: Task<StoreImage, any Error>)?
    }

    private let store: CarePlanStore
    /// Where the primary's identity files are, sent to every copy; `nil`: the store alone.
    private let identityDirectory: String?
    private let state = Mutex(State())
    private let wakes = Broadcast<Void>()

    init(store: CarePlanStore, identityDirectory: String?) {
        self.store = store
        self.identityDirectory = identityDirectory
    }

    /// How many revisions' and generations' times are kept: a copy further behind is told the oldest.
    static let timesKept = 4096

    /// The feed read `batch`: a new generation, its commit times kept, every connection woken.
    func changed(_ batch: [StoreChange]) {
        guard let oldest = batch.lazy.map(\.committedAt).min() else { return }
        state.withLock { state in
            for change in batch {
                state.commits[change.revision] = change.committedAt
                state.commits.removeValue(forKey: change.revision - Self.timesKept)
            }
            Self.begin(&state, at: oldest)
        }
        wakes.send(())
    }

    /// This primary wrote what the change log does not record (measurements) at `date`.
    func touched(at date: Date) {
        state.withLock { Self.begin(&$0, at: date) }
        wakes.send(())
    }

    private static func begin(_ state: inout State, at date: Date) {
        state.generation += 1
        state.changedAt[state.generation] = date
        state.changedAt.removeValue(forKey: state.generation - timesKept)
    }

    /// A stream that yields whenever the store changes, until its reader stops.
    func changes() -> AsyncStream<Void> {
        wakes.subscribe()
    }

    /// The store's image as of the newest generation (or newer), and that generation: made
    /// at most once per generation, whichever connection asks first.
    func image() async throws -> (image: StoreImage, generation: Int) {
        let (task, generation) = state.withLock { state in
            if let image = state.image, image.generation == state.generation { return (image.task, image.generation) }
            let task = Task { [store] in try await StoreImage.make(of: store) }
            state.image = (state.generation, task)
            return (task, state.generation)
        }
        do {
            return (try await task.value, generation)
        } catch {
            // Made again at the next asking.
            state.withLock { state in
                if state.image?.task == task { state.image = nil }
            }
            throw error
        }
    }

    /// The identity files to send (read each time: a restore or renewal may change them).
    func identity() throws -> IdentityFiles? {
        try identityDirectory.map { directory throws(BackupError) in try IdentityFiles.read(from: directory) }
    }

    /// When the oldest change after revision `base` through `revision` was committed, if known:
    /// for a copy that says which revision it holds.
    func oldestCommit(after base: Int, through revision: Int) -> Date? {
        oldest(in: state.withLock { $0.commits }, after: base, through: revision)
    }

    /// When the oldest write after generation `base` through `generation` was committed.
    func oldestChange(after base: Int, through generation: Int) -> Date? {
        oldest(in: state.withLock { $0.changedAt }, after: base, through: generation)
    }

    private func oldest(in times: [Int: Date], after base: Int, through last: Int) -> Date? {
        guard last > base else { return nil }
        for candidate in max(base + 1, last - Self.timesKept + 1)...last {
            if let date = times[candidate] { return date }
        }
        return nil
    }
}
