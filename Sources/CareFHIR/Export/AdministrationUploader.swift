import CareCore
import CarePlanStore
import Foundation

/// One transaction a FHIR server accepted.
public struct UploadProgress: Sendable, Hashable {
    public var administrations: Int
    /// New administrations the server created.
    public var created = 0
    /// New administrations the server had already (sent before).
    public var existing = 0
    /// Replaced outcomes sent as `entered-in-error`.
    public var withdrawn = 0
    public var attempts: Int
    /// The store's cursor for the server now stands at this revision.
    public var through: Int

    init(_ batch: [DoseAdministration], _ result: TransactionResult, through: Int) {
        administrations = batch.count
        attempts = result.attempts
        self.through = through
        for (dose, status) in zip(batch, result.statuses) {
            if dose.status == .replaced {
                withdrawn += 1
            } else if status.hasPrefix("201") {
                created += 1
            } else {
                existing += 1
            }
        }
    }
}

/// Sends an export to a FHIR server in transactions of at most `batchSize` entries, oldest
/// first, and moves the store's cursor for that server after each one the server accepts:
/// an interrupted upload resumes where it stopped.
public struct AdministrationUploader: Sendable {
    public let store: CarePlanStore
    /// Where its progress is kept, never moving back.
    private var cursors: ReaderCursors { CareCore(store: store).cursors }
    public let poster: TransactionPoster
    public let version: DoseAdministration.Version
    public let batchSize: Int

    public init(store: CarePlanStore, poster: TransactionPoster, version: DoseAdministration.Version, batchSize: Int = 100) {
        self.store = store
        self.poster = poster
        self.version = version
        self.batchSize = max(1, batchSize)
    }

    /// The store's cursor for exports to this server.
    public var cursorName: String { "fhir-export \(poster.url)" }

    /// Sends `export`, reporting each accepted transaction; an empty export only moves the cursor.
    public func upload(_ export: AdministrationExport, progress: (UploadProgress) -> Void = { _ in }) async throws {
                let batches = Self.batches(export.doses, size: batchSize)
        for (index, batch) in batches.enumerated() {
            let result = try await poster.post(try DoseAdministration.bundle(batch, version: version))
            guard result.statuses.count == batch.count else {
                throw FHIRExportError.invalidResponse(
                    url: poster.url, detail: "\(result.statuses.count) entries answered for \(batch.count) sent")
            }
            let through = index == batches.count - 1 ? export.through : batch.last!.revision
            try await cursors.advance(cursorName, to: through)
            progress(UploadProgress(batch, result, through: through))
        }
        if batches.isEmpty { try await cursors.advance(cursorName, to: export.through) }
    }

    /// `doses` cut into batches of at most `size`, never between two of the same revision
    /// (those stay together even if they alone are more than `size`).
    static func batches(_ doses: [DoseAdministration], size: Int) -> [[DoseAdministration]] {
        var batches: [[DoseAdministration]] = []
        var start = doses.startIndex
        while start < doses.endIndex {
            let end = doses[start...].firstIndex { $0.revision != doses[start].revision } ?? doses.endIndex
            if let last = batches.last, last.count + (end - start) <= size {
                batches[batches.count - 1] += doses[start..<end]
            } else {
                batches.append(Array(doses[start..<end]))
            }
            start = end
        }
        return batches
    }
}
