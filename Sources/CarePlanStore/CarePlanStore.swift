import CarePlan
import Foundation
import GRDB
import PrivateFiles

/// The authoritative care-plan store: one SQLite file in WAL mode, shared safely by
/// several processes (a primary node and the command line, say).
///
/// Every change is a row in the change log with a monotonic **revision**; outcomes are
/// never overwritten without trace. Events are computed from schedules; only outcomes
/// are stored.
public final class CarePlanStore: Sendable {
    /// The file the store lives in.
    public let path: String
    let pool: DatabasePool
    let now: @Sendable () -> Date
    let signal = ChangeSignal()
    let definitions = DefinitionCache()

    /// Opens (creating if needed) the store at `path`, readable by its owner only (0600, with
    /// its WAL and shared-memory files), and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long a write waits for another process's write to finish.
    ///   - now: the clock that stamps commits; tests inject their own.
    public init(
        path: String, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init
    ) throws(CarePlanStoreError) {
        self.path = path
        self.now = now
        var configuration = Configuration()
        configuration.label = "CarePlanStore"
        configuration.busyMode = .timeout(busyTimeout)
        do {
            // Health data: the file, its WAL and shared memory are the owner's alone (0600).
            try PrivateFiles.prepareDatabase(path)
            pool = try DatabasePool(path: path, configuration: configuration)
            // An acknowledged outcome must survive a power cut, not only a crash. (GRDB puts
            // the writer of a WAL pool at NORMAL once it is open, so this comes after.)
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            try Schema.migrate(pool)
        } catch let error as CarePlanStoreError {
            throw error
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    /// The writer's `PRAGMA synchronous` level (2 is FULL).
    func synchronousLevel() throws -> Int {
        try pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// The newest revision: 0 for an empty store.
    public func revision() throws(CarePlanStoreError) -> Int {
        try read { db in try Self.revision(db) }
    }

    static func revision(_ db: Database) throws -> Int {
        try db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = 'change'") ?? 0
    }

    /// Runs `body` in a read transaction off the caller's thread, mapping errors.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(CarePlanStoreError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    /// Runs `body` in a read transaction, mapping errors to ``CarePlanStoreError``.
    func read<T>(_ body: (Database) throws -> T) throws(CarePlanStoreError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    /// Runs `body` in one immediate write transaction and wakes this process's observers
    /// once it has committed. Nothing is written if `body` throws.
    func write<T>(_ body: (Database) throws -> T) throws(CarePlanStoreError) -> T {
        let result: T
        do {
            result = try pool.write(body)
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
        signal.notify()
        return result
    }
}
