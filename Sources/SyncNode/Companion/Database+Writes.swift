import CarePlanStore
import GRDB

/// How the companion writes its state: the same few statements for every context, completion
/// and measurement, each compiled once per connection through the store's `run` and
/// `transaction` (GRDB's `execute(sql:)` and `inTransaction` compile theirs anew each time,
/// which cost more than running them).
extension Database {

    /// Runs `body`, whose commits need not reach the disk at once, at `synchronous = NORMAL`,
    /// then returns to FULL. In WAL mode a commit at NORMAL survives the process crashing,
    /// and waits for the next FULL commit (or checkpoint) to be synced with it; only a power
    /// cut can lose it. For what a companion can lose that way, see ``CompanionState``.
    func unsynced<T>(_ body: () throws -> T) throws -> T {
        try run("PRAGMA synchronous = NORMAL")
        let result = Result { try body() }
        // Back to FULL whatever the body did; failing that is an error of its own, never
        // silently a connection whose promises are no longer synced.
        try run("PRAGMA synchronous = FULL")
        return try result.get()
    }
}
