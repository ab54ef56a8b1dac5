import CareBackup
import CarePlanStore
import Foundation
import Logging
import Synchronization
import Waiting

/// The primary's side of standby copies: the store's image, made once per revision and
/// shared by every standby connection; when each revision was committed, for the copies'
/// lag; and a wake for each connection when the store changes.
final class StandbySource: Sendable {
    private struct State {
        /// The newest revision the change feed has read.
        var newest = 0
        var commits: [Int: Date] = [:]
        /// The image of the newest revision, made or being made.
        var image: (revision: Int, task: Task<StoreImage, any Error>)?
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

    /// How many revisions' commit times are kept: a copy further behind is told the oldest.
    static let commitsKept = 4096

    /// The feed read `batch`: its commit times are kept, and every connection woken.
    func changed(_ batch: [StoreChange]) {
        state.withLock { state in
            for change in batch {
                state.commits[change.revision] = change.committedAt
                state.commits.removeValue(forKey: change.revision - Self.commitsKept)
                state.newest = max(state.newest, change.revision)
            }
        }
        wakes.send(())
    }

    /// A stream that yields whenever the store changes, until its reader stops.
    func changes() -> AsyncStream<Void> {
        wakes.subscribe()
    }

    /// The store's image at the newest revision the feed has read (or newer): made at most
    /// once per revision, whichever connection asks first.
    func image() async throws -> StoreImage {
        let task = state.withLock { state in
            if let image = state.image, image.revision >= state.newest { return image.task }
            let task = Task { [store] in try await StoreImage.make(of: store) }
            state.image = (state.newest, task)
            return task
        }
        do {
            return try await task.value
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

    /// When the oldest change after `base` through `revision` was committed, if known.
    func oldestCommit(after base: Int, through revision: Int) -> Date? {
        guard revision > base else { return nil }
        return state.withLock { state in
            for candidate in max(base + 1, revision - Self.commitsKept + 1)...revision {
                if let committedAt = state.commits[candidate] { return committedAt }
            }
            return nil
        }
    }
}
