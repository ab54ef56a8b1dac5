import CarePlan
import CarePlanStore
import Foundation
import GRDB
import Synchronization
import SyncProtocol

/// Measurements waiting for the primary, in the companion's state file beside the
/// completions' outbox, in the order they were added. Unlike completions they are not
/// held in memory (a watch offline for a day holds 86,400 heart rates): the sender reads
/// them back a batch at a time, and removes a batch once the primary has answered it.
final class MeasurementOutbox: Sendable {
    /// The oldest measurements, as they go on the wire, with the sources they name.
    struct Batch: Sendable {
        /// The sequence number of the last sample: the batch's samples are removed through it.
        var lastSequence: Int64
        var samples: [EncodedMeasurement]
        var sources: [EncodedMeasurementSource]
    }

    private let queue: DatabaseQueue
    private let count: Atomic<Int>

    /// The outbox kept in `queue`'s file (the tables of CompanionState's migration v3), which
    /// holds `depth` samples as it is opened.
    init(queue: DatabaseQueue, depth: Int) {
        self.queue = queue
        count = Atomic(depth)
    }

    /// How many samples wait.
    var depth: Int { count.load(ordering: .relaxed) }

    /// Adds `samples` after those waiting, and keeps the `sources` they name (replacing a
    /// source of the same id), in one transaction. A sample whose id waits already is not
    /// added again. Returns how many wait now.
    @discardableResult
    func add(_ samples: [MeasurementSample], sources: [MeasurementSource]) async throws -> Int {
        let rows = try samples.map { ($0.id, try $0.serializedBytes()) }
        let kept = try sources.map { ($0.id, try $0.serializedBytes()) }
        let added = try await queue.write { db in
            for (id, source) in kept {
                try db.run(
                    "INSERT INTO measurement_source (id, source) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET source = excluded.source",
                    arguments: [id, source])
            }
            var added = 0
            for (id, sample) in rows {
                try db.run("INSERT INTO measurement_outbox (id, sample) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", arguments: [id, sample])
                added += db.changesCount
            }
            return added
        }
        // Counted once committed: a commit that fails adds nothing.
        return count.add(added, ordering: .relaxed).newValue
    }

    /// The oldest samples: at most `maximumSamples`, and as many as fit in `maximumBytes`
    /// (at least one); `nil` when none wait.
    func oldest(maximumSamples: Int, maximumBytes: Int) async throws -> Batch? {
        try await queue.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT sequence, sample FROM measurement_outbox ORDER BY sequence LIMIT ?", arguments: [maximumSamples])
            var samples: [EncodedMeasurement] = []
            var bytes = 0
            var last: Int64 = 0
            for row in rows {
                let data: Data = row[1]
                guard samples.isEmpty || bytes + data.count + 8 <= maximumBytes else { break }
                samples.append(try EncodedMeasurement(serializedBytes: data))
                bytes += data.count + 8
                last = row[0]
            }
            guard !samples.isEmpty else { return nil }
            let ids = Array(Set(samples.map(\.sourceID)))
            let sources = try Data.fetchAll(
                db, sql: "SELECT source FROM measurement_source WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                arguments: StatementArguments(ids)
            ).map { try EncodedMeasurementSource(serializedBytes: $0) }
            return Batch(lastSequence: last, samples: samples, sources: sources)
        }
    }

    /// Removes the samples through `sequence`, answered by the primary; returns how many wait.
    @discardableResult
    func remove(through sequence: Int64) async throws -> Int {
        // Unsynced: a removal lost to a power cut sends answered samples again, which the
        // primary counts as duplicates (see CompanionState).
        let removed = try await queue.writeWithoutTransaction { db in
            try db.unsynced {
                try db.transaction { try db.run("DELETE FROM measurement_outbox WHERE sequence <= ?", arguments: [sequence]) }
                return db.changesCount
            }
        }
        return count.subtract(removed, ordering: .relaxed).newValue
    }
}
