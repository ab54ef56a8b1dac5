import Foundation
import GRDB

/// A record from an external system that an import took but holds for a person's review:
/// nothing of it is scheduled while it is held. Its `review` says what is held and why, in
/// the importing system's terms (for FHIR, CareFHIR's `HeldOrder` as JSON).
public struct HeldSource: Sendable, Hashable {
    /// The external system, such as `fhir`.
    public var system: String
    /// The record in that system, such as `MedicationRequest/abc`.
    public var reference: String
    /// Whom the record is about, such as `Patient/p1`.
    public var subject: String?
    /// The record as it was imported.
    public var payload: Data
    /// What is held and why, as the importing system writes it.
    public var review: Data
    /// When the store first held it for what `review` says.
    public internal(set) var heldAt: Date?

    public init(system: String, reference: String, subject: String? = nil, payload: Data, review: Data) {
        self.system = system
        self.reference = reference
        self.subject = subject
        self.payload = payload
        self.review = review
    }
}

/// What an import decided of the records it read from one system: those of `reviewed`
/// that are in `held` are held for review, the others no longer are.
public struct SourceReview: Sendable {
    public var system: String
    /// Every record the import read, by reference.
    public var reviewed: [String]
    /// Those it holds (each of `system`).
    public var held: [HeldSource]

    public init(system: String, reviewed: [String], held: [HeldSource]) {
        self.system = system
        self.reviewed = reviewed
        self.held = held
    }
}

extension SourceStore {
    /// Every record from `system` held for review, by reference.
    public func held(system: String) async throws(CarePlanStoreError) -> [HeldSource] {
        try await read { db in
            try db.rows("SELECT system, reference, subject, payload, review, held_at FROM held_source WHERE system = ? ORDER BY reference",
                        arguments: [system]).map { row in
                var held = HeldSource(system: row[0], reference: row[1], subject: row[2], payload: row[3], review: row[4])
                held.heldAt = Date(timeIntervalSince1970: row[5])
                return held
            }
        }
    }
}
