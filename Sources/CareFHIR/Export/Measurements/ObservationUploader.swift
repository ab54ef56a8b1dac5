import CareCore
import CarePlan
import CarePlanStore
import Foundation

/// One transaction of Observations a FHIR server accepted.
public struct ObservationProgress: Sendable, Hashable {
    public var observations: Int
    /// Observations the server created, and those it had already (sent before).
    public var created = 0
    public var existing = 0
    public var attempts: Int
    /// The store's cursor for the server now stands at this measurement sequence.
    public var through: Int
}

/// Sends measurements to a FHIR server as Observations, with their Patient and Devices, in
/// transactions of at most `batchSize` Observations, in the order the store received them;
/// the store's cursor for that server moves after each transaction the server accepts, so an
/// interrupted upload resumes where it stopped. The first upload to a server sends only what
/// was taken since a given moment (the start of the day, unless told otherwise), so as not to
/// send years of history by surprise; later ones send everything received since.
public struct ObservationUploader: Sendable {
    public let store: CarePlanStore
    /// Where its progress is kept, never moving back.
    private var cursors: ReaderCursors { CareCore(store: store).cursors }
    public let poster: TransactionPoster
    public let mapper: ObservationMapper
    public let batchSize: Int

    public init(store: CarePlanStore, poster: TransactionPoster, mapper: ObservationMapper, batchSize: Int = 100) {
        self.store = store
        self.poster = poster
        self.mapper = mapper
        self.batchSize = max(1, batchSize)
    }

    /// The store's cursor for Observations sent to this server (a measurement sequence).
    public var cursorName: String { "fhir-observations \(poster.url)" }

    /// Where an upload starts: after the cursor, or (no cursor yet) with what was taken since
    /// `firstFrom`.
    public func start(firstFrom: Date) async throws -> (after: Int, takenFrom: Date?) {
        guard let cursor = try await store.measurements.cursor(cursorName) else { return (0, firstFrom) }
        return (cursor, nil)
    }

    /// Sends every measurement after `after` (taken since `takenFrom`, if given), reporting
    /// each accepted transaction. Writes nothing when there is nothing to send, but after a
    /// first upload (`takenFrom`), whose cursor it records.
    public func upload(after: Int, takenFrom: Date?, progress: (ObservationProgress) -> Void = { _ in }) async throws {
        var position = after
        // Read before the batches: a sample stored during a first upload is after this, and
        // goes with the next upload rather than being passed over.
        let considered = takenFrom == nil ? nil : try await store.measurements.lastSequence()
        while true {
            let batch = try await store.measurements.list(storedAfter: position, takenFrom: takenFrom, limit: batchSize)
            guard let last = batch.last else { break }
            let result = try await poster.post(try mapper.bundle(batch))
            let statuses = result.statuses.suffix(batch.count)
            guard result.statuses.count >= batch.count + (mapper.patientResource == nil ? 0 : 1) else {
                throw FHIRExportError.invalidResponse(
                    url: poster.url, detail: "\(result.statuses.count) entries answered for \(batch.count) Observations and their Patient and Devices")
            }
            try await cursors.advance(cursorName, to: last.sequence)
            let created = statuses.filter { $0.hasPrefix("201") }.count
            progress(ObservationProgress(
                observations: batch.count, created: created, existing: batch.count - created, attempts: result.attempts, through: last.sequence))
            position = last.sequence
        }
        // A first upload passed over what was taken before `takenFrom` and stored before it
        // began: the next starts after that (and the cursor exists from now on).
        if let considered { try await cursors.advance(cursorName, to: max(position, considered)) }
    }
}
