import CarePlan
import CarePlanStore
import Foundation
import GRDB
import Logging
import RelayProtocol
import PrivateFiles
import Synchronization
import SyncProtocol
import Clocks
import Waiting

/// An edge of SyncNode, where wire bytes are kept: contexts and deltas as the serialized
/// Envelopes they arrived in, completions as the messages they are sent as (a stored format,
/// read and written through SyncProtocol's mappings).
///
/// What a companion keeps between runs, in one SQLite file in its state directory: the
/// primary it paired with, the last application context, the outbox of completions
/// not yet answered, the measurements not yet answered (``MeasurementOutbox``) and the
/// newest dose alert handled. (Its identity is beside it, in its own files.) The context is kept as
/// the last whole context that arrived and the deltas that followed it, each as it came
/// off the wire: a delta costs a write of its own size, not the whole context encoded again;
/// once the deltas kept would outweigh the whole context (by a factor drawn between 1 and 2,
/// so that companions sharing a process do not all encode theirs at once), it is written
/// whole again.
///
/// Apart from the measurements, the file is read once, when the state is opened; from then
/// on it is only written, and every read comes from the copy in memory, which follows each
/// write once it commits (on the writer's queue, so in commit order). A delta is the
/// exception: it is applied to the context in memory as it arrives, in place, and written
/// behind, together with the deltas that follow it within ``contextWriteDelay``. Writing
/// behind buys (A/B, `caresync-bench sync`, 2026-11-28, `4b8b8cf`) half the fan-out at 100
/// companions: p50 21 → 12–14 ms (Docs/Benchmarks.md, "What the design decisions bought").
///
/// Only what the companion promised is synced: the pairing and the alerts handled as they
/// commit, and a completion's outbox row once `complete()` is about to say it is queued
/// (``sync()``). A completion the primary answered in time is kept there; until its caller
/// hears back it promises nothing, so its row needs no sync of its own. Its row, contexts and
/// the removal of answered completions and measurements are committed without a sync
/// (``Database/unsynced(_:)``) and reach the disk with the next sync: a power cut may take
/// them, after which the companion holds an older context (the primary sends a delta from
/// it, or the whole), sends an answered message again (the primary answers with the answer
/// it kept, and records nothing), or has lost a completion whose caller was never answered.
/// A crash of the process loses none of them, except the deltas of the last
/// ``contextWriteDelay`` not yet written: the companion then holds an older context, and the
/// primary sends what changed since. Not syncing what was not promised buys (A/B,
/// `caresync-bench sync`, 2026-11-28, `7c872b7`) a round trip at 10 companions of 1.37–1.43
/// ms at p50 instead of 1.57–1.65, and 15–35 % more sustained completions.
final class CompanionState: Sendable {
    private struct Memory {
        var primaryID: String?
        /// The primary's relays, as it last named them.
        var relays: [RelayRoute] = []
        /// The sequence of the newest dose alert handled.
        var alertsAfter = 0
        /// When a connection to the primary last ended (or began), on the companion's clock.
        var lastHeard: Date?
        var context: ApplicationContext?
        /// The bytes of the deltas written after the whole context kept, and how many may be
        /// before it is written whole again (``allowance(after:)``).
        var deltaBytes = 0
        var deltaAllowance = 0
        /// The payloads of the deltas applied to `context` and not yet written, oldest first.
        var unwritten: [Data] = []
        /// The outbox, oldest first.
        var outbox: [OutboxEntry]
    }

    private let queue: DatabaseQueue
    private let memory: Mutex<Memory>
    /// Measurements not yet answered, read back from the file a batch at a time.
    let measurements: MeasurementOutbox
    /// How long a delta applied waits to be written (at most), with those that follow it:
    /// deltas arriving together cost one transaction, not one each.
    let contextWriteDelay: Duration
    private let clock: any WallClock
    private let logger: Logger

    private init(queue: DatabaseQueue, memory: Memory, measurementsWaiting: Int, contextWriteDelay: Duration, clock: any WallClock, logger: Logger) {
        self.queue = queue
        self.memory = Mutex(memory)
        measurements = MeasurementOutbox(queue: queue, depth: measurementsWaiting)
        self.contextWriteDelay = contextWriteDelay
        self.clock = clock
        self.logger = logger
    }

    /// Opens (creating if needed) the state in `directory`, on a thread of its own. A cached
    /// context that cannot be read is logged and forgotten: the primary sends a new one.
    /// Deltas are written `contextWriteDelay` after they are applied, waited on `clock`.
    static func open(
        directory: String, logger: Logger, contextWriteDelay: Duration = .milliseconds(200), clock: any WallClock = .system
    ) async throws -> CompanionState {
        try await blocking {
            let queue = try openQueue(path: directory + "/" + fileName, directory: directory)
            let stored = try queue.read { db in
                (
                    primaryID: try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'primaryID'"),
                    relays: try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'relays'"),
                    alertsAfter: try Int.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'alertsAfter'") ?? 0,
                    lastHeard: try Double.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'lastHeard'"),
                    context: try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'context'"),
                    deltas: try Data.fetchAll(db, sql: "SELECT payload FROM context_delta ORDER BY sequence"),
                    outbox: try Data.fetchAll(db, sql: "SELECT completion FROM outbox ORDER BY sequence"),
                    measurements: try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement_outbox") ?? 0
                )
            }
            var context: ApplicationContext?
            do {
                context = try stored.context.map { try ApplicationContext(serializedEnvelope: $0) }
                for payload in stored.deltas {
                    let delta = try ContextDelta(serializedEnvelope: payload)
                    guard let held = context, let next = delta.applied(to: held) else {
                        throw ProtocolError.malformed("a kept delta (revision \(delta.revision)) does not apply to the context before it")
                    }
                    context = next
                }
            } catch {
                context = nil
                logger.warning("the cached context cannot be read; waiting for the primary's", metadata: [
                    "directory": "\(directory)", "error": "\(error)",
                ])
            }
            // Routes that cannot be read are forgotten: the next HelloAck names them again.
            let relays = stored.relays.flatMap { try? JSONDecoder().decode([RelayRoute].self, from: $0) } ?? []
            let outbox = try stored.outbox.map { OutboxEntry(try CompletionMessage(serializedBytes: $0), awaited: false) }
            return CompanionState(
                queue: queue,
                memory: Memory(
                    primaryID: stored.primaryID, relays: relays, alertsAfter: stored.alertsAfter,
                    lastHeard: stored.lastHeard.map(Date.init(timeIntervalSince1970:)), context: context,
                    deltaBytes: stored.deltas.reduce(0) { $0 + $1.count }, deltaAllowance: allowance(after: stored.context?.count ?? 0),
                    outbox: outbox),
                measurementsWaiting: stored.measurements, contextWriteDelay: contextWriteDelay, clock: clock, logger: logger)
        }
    }

    /// The state's file in its directory.
    static let fileName = "companion.sqlite"

    private static func openQueue(path: String, directory: String) throws -> DatabaseQueue {
        // The state directory and its database are the owner's alone (0700, 0600).
        try PrivateFiles.makeDirectory(directory, own: true)
        try PrivateFiles.prepareDatabase(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // WAL: one sync per commit instead of a rollback journal's four; FULL: a queued
        // completion survives a power cut.
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 companion") { db in
            try db.execute(sql: """
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
                CREATE TABLE outbox (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    message_id TEXT NOT NULL UNIQUE,
                    completion BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2 context deltas") { db in
            try db.execute(sql: "CREATE TABLE context_delta (sequence INTEGER PRIMARY KEY AUTOINCREMENT, payload BLOB NOT NULL)")
        }
        migrator.registerMigration("v3 measurements") { db in
            try db.execute(sql: """
                CREATE TABLE measurement_outbox (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    sample BLOB NOT NULL
                );
                CREATE TABLE measurement_source (id TEXT PRIMARY KEY NOT NULL, source BLOB NOT NULL);
                """)
        }
        try migrator.migrate(queue)
        return queue
    }

    /// Closes the file; the state must not be used after.
    func close() throws {
        try queue.close()
    }

    /// The fingerprint of the primary this companion paired with.
    var primaryID: String? {
        memory.withLock { $0.primaryID }
    }

    func remember(primaryID: String) async throws {
        try await commit(Self.setting("primaryID", primaryID)) { $0.primaryID = primaryID }
    }

    /// The primary's relays, in the order to try them.
    var relays: [RelayRoute] {
        memory.withLock { $0.relays }
    }

    /// Keeps the relays the primary names now in place of those held, unless they are the same.
    func remember(relays: [RelayRoute]) async throws {
        guard relays != self.relays else { return }
        let encoded = try JSONEncoder().encode(relays)
        try await commit(Self.setting("relays", encoded)) { $0.relays = relays }
    }

    /// When a connection to the primary last ended or began, on this companion's clock.
    var lastHeard: Date? {
        memory.withLock { $0.lastHeard }
    }

    /// Keeps `instant` as the last time the primary was heard, unsynced (a power cut may take
    /// it: the companion then says it was unreachable since the time before).
    func heard(at instant: Date) async throws {
        try await commit(synced: false, Self.setting("lastHeard", instant.timeIntervalSince1970)) { $0.lastHeard = instant }
    }

    /// The sequence of the newest dose alert handled (0 for none).
    var alertsAfter: Int {
        memory.withLock { $0.alertsAfter }
    }

    /// Keeps `sequence` as the newest dose alert handled, synced: alerts are reported once.
    func handledAlerts(through sequence: Int) async throws {
        try await commit(Self.setting("alertsAfter", sequence)) { $0.alertsAfter = sequence }
    }

    /// The last context received, if any.
    var context: ApplicationContext? {
        memory.withLock { $0.context }
    }

    /// Keeps the newest context, which arrived whole: on disk as the payload it arrived in
    /// (an ApplicationContext message, not re-encoded), in place of the context and deltas
    /// kept, and of the deltas not yet written.
    func cache(_ context: ApplicationContext, frame payload: Data) async throws {
        try await commit(synced: false, Self.replacingContext(with: payload)) { memory in
            memory.context = context
            memory.unwritten = []
            memory.deltaBytes = 0
            memory.deltaAllowance = Self.allowance(after: payload.count)
        }
    }

    /// Applies `delta`, which arrived as `payload`, to the context held and returns the newer
    /// context, or `nil` if it does not apply to the one held. It is applied in place (only
    /// the events it changes are written, where nothing else still holds the context) and
    /// written behind: see ``writeContext()``.
    func apply(_ delta: ContextDelta, payload: Data) -> ApplicationContext? {
        let (applied, first) = memory.withLock { memory -> (ApplicationContext?, Bool) in
            guard memory.context != nil, delta.apply(to: &memory.context!) else { return (nil, false) }
            memory.unwritten.append(payload)
            return (memory.context, memory.unwritten.count == 1)
        }
        if first {
            Task { [self] in
                // Shortened at random by up to half: companions sharing a process (a household,
                // a benchmark) that receive the same deltas do not all write at once.
                try? await clock.sleep(contextWriteDelay * Double.random(in: 0.5...1))
                await writeContext()
            }
        }
        return applied
    }

    /// Writes the deltas applied and not yet written, in one transaction: as they came, or
    /// as the whole context once the deltas kept would outweigh it. A write that fails
    /// forgets the context (logged): the next delta does not apply, and a whole one is
    /// asked for. Runs `contextWriteDelay` after a delta, and when the companion stops.
    func writeContext() async {
        guard !memory.withLock({ $0.unwritten.isEmpty }) else { return }
        do {
            // The deltas are taken on the writer's queue, so the file follows memory in order.
            try await commit(synced: false) { db in
                let (payloads, whole) = memory.withLock { memory -> ([Data], ApplicationContext?) in
                    defer { memory.unwritten = [] }
                    let bytes = memory.unwritten.reduce(memory.deltaBytes) { $0 + $1.count }
                    return (memory.unwritten, bytes > memory.deltaAllowance ? memory.context : nil)
                }
                if let whole {
                    let payload = try whole.serializedEnvelope()
                    try Self.replacingContext(with: payload)(db)
                    memory.withLock { ($0.deltaBytes, $0.deltaAllowance) = (0, Self.allowance(after: payload.count)) }
                } else {
                    for payload in payloads { try db.run("INSERT INTO context_delta (payload) VALUES (?)", arguments: [payload]) }
                    memory.withLock { memory in memory.deltaBytes = payloads.reduce(memory.deltaBytes) { $0 + $1.count } }
                }
            } then: { _ in }
        } catch {
            memory.withLock { ($0.context, $0.unwritten) = (nil, []) }
            logger.warning("the context could not be kept; a whole one will be asked for", metadata: ["error": "\(error)"])
        }
    }

    /// The bytes of deltas to keep after a whole context of `wholeBytes` before writing it
    /// whole again: between once and twice its size, at random.
    private static func allowance(after wholeBytes: Int) -> Int {
        wholeBytes + Int.random(in: 0...wholeBytes)
    }

    /// The context kept becomes `payload`, with no delta after it.
    private static func replacingContext(with payload: Data) -> @Sendable (Database) throws -> Void {
        { db in
            try setting("context", payload)(db)
            try db.run("DELETE FROM context_delta")
        }
    }

    private static func setting(_ key: String, _ value: some DatabaseValueConvertible & Sendable) -> @Sendable (Database) throws -> Void {
        { db in
            try db.run(
                "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }

    /// Commits `change`, then applies `update` to the copy in memory, both on the writer's
    /// queue; synced as it commits if `synced`, else with the next synced commit.
    private func commit<T: Sendable>(
        synced: Bool = true, _ change: @Sendable (Database) throws -> Void, then update: @Sendable (inout Memory) -> T
    ) async throws -> T {
        try await queue.writeWithoutTransaction { db in
            func write() throws { try db.transaction { try change(db) } }
            if synced { try write() } else { try db.unsynced(write) }
            return memory.withLock { update(&$0) }
        }
    }

    /// Appends a completion to the outbox in memory, where the sender finds it at once, and
    /// then writes its row, unsynced (``sync()`` makes it survive a power cut): the primary
    /// can be judging it while the row commits. It stays until the primary has answered it.
    /// Returns how many are in the outbox then.
    ///
    /// - Throws: if the row cannot be written (a full disk); the entry has then left the
    ///   outbox, though the primary may have recorded it meanwhile.
    @discardableResult
    func enqueue(_ entry: OutboxEntry, sending wake: () -> Void) async throws -> Int {
        let count = memory.withLock { memory in
            memory.outbox.append(entry)
            return memory.outbox.count
        }
        wake()
        do {
            let bytes: Data = try entry.completion.serializedBytes()
            try await commit(synced: false) { db in
                try db.run("INSERT INTO outbox (message_id, completion) VALUES (?, ?)", arguments: [entry.messageID, bytes])
            } then: { _ in }
            entry.rowWritten()
            return count
        } catch {
            memory.withLock { $0.outbox.removeAll { $0 === entry } }
            entry.rowWritten(error)
            throw error
        }
    }

    /// Makes every commit so far survive a power cut, as a synced commit would: in WAL mode
    /// the log holds each commit a checkpoint has not yet moved (and a checkpoint syncs
    /// those it moves), so syncing the log's file is enough. Runs on the writer's queue,
    /// after the commits queued before it.
    func sync() async throws {
        try await queue.writeWithoutTransaction { _ in try PrivateFiles.sync(queue.path + "-wal") }
    }

    /// The oldest unanswered completion.
    var oldest: OutboxEntry? {
        memory.withLock { $0.outbox.first }
    }

    /// The completion in the outbox with `messageID`, if any.
    func entry(_ messageID: String) -> OutboxEntry? {
        memory.withLock { $0.outbox.first { $0.messageID == messageID } }
    }

    /// Every unanswered completion, oldest first.
    var pending: [OutboxEntry] {
        memory.withLock { $0.outbox }
    }

    /// How many completions the outbox holds.
    var depth: Int {
        memory.withLock { $0.outbox.count }
    }

    /// Removes an answered completion; returns how many are left.
    @discardableResult
    func remove(_ messageID: String) async throws -> Int {
        try await commit(synced: false) { db in
            try db.run("DELETE FROM outbox WHERE message_id = ?", arguments: [messageID])
        } then: { memory in
            memory.outbox.removeAll { $0.messageID == messageID }
            return memory.outbox.count
        }
    }
}
