import CarePlan
import Foundation
import GRDB
import PrivateFiles
import Synchronization
import Clocks
import Waiting

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
    /// What stamps commits and judges expiries; tests move their own.
    let clock: any WallClock
    let definitions = DefinitionCache()
    /// Completions' judgements, committed in groups (``commitTogether(_:then:)``).
    let completions = GroupCommit<CompletionJudgement, CompletionReceipt>()
    /// The change feeds' observers of this process's commits (see ``ChangeLogObserver``).
    let changeLogObservers = Mutex<[ObjectIdentifier: ChangeLogObserver]>([:])

    /// Opens (creating if needed) the store at `path`, readable by its owner only (0600, with
    /// its WAL and shared-memory files), and brings its schema up to date, on a thread of
    /// its own: opening may wait `busyTimeout` for another process's write.
    ///
    /// - Parameters:
    ///   - path: the SQLite file; its directory must exist.
    ///   - busyTimeout: how long a write waits for another process's write to finish.
    ///   - clock: what stamps commits and judges expiries; tests pass their own.
    public init(
        path: String, busyTimeout: Duration = .seconds(10), clock: any WallClock = .system
    ) async throws(CarePlanStoreError) {
        self.path = path
        self.clock = clock
        pool = try await blocking { () throws(CarePlanStoreError) in try Self.openPool(path: path, busyTimeout: busyTimeout) }
    }

    private static func openPool(path: String, busyTimeout: Duration) throws(CarePlanStoreError) -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "CarePlanStore"
        configuration.busyMode = .timeout(busyTimeout.inSeconds)
        do {
            // Health data: the file, its WAL and shared memory are the owner's alone (0600).
            try PrivateFiles.prepareDatabase(path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            // An acknowledged outcome must survive a power cut, not only a crash. (GRDB puts
            // the writer of a WAL pool at NORMAL once it is open, so this comes after.)
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            try Schema.migrate(pool)
            return pool
        } catch let error as CarePlanStoreError {
            throw error
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    /// The instant now on the store's clock.
    public func now() -> Date { clock.now }

    /// The writer's `PRAGMA synchronous` level (2 is FULL).
    func synchronousLevel() async throws -> Int {
        try await pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// The newest revision: 0 for an empty store.
    public func revision() async throws(CarePlanStoreError) -> Int {
        try await read { db in try Self.revision(db) }
    }

    static func revision(_ db: Database) throws -> Int {
        try db.direct("SELECT seq FROM sqlite_sequence WHERE name = 'change'") { try $0.step() ? $0.int(0) : nil } ?? 0
    }

    /// Runs `body` in a read transaction on one of GRDB's reader threads (never the
    /// caller's: the store has no synchronous access), mapping errors.
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(CarePlanStoreError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }

    /// Runs `body` in one immediate write transaction on GRDB's writer thread; nothing is
    /// written if `body` throws. The change feed hears of the commit from GRDB.
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(CarePlanStoreError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw CarePlanStoreError(error, path: path)
        }
    }
}
