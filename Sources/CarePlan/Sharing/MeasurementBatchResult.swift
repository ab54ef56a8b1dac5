import Foundation

/// A sample the primary refused, and why, for a person.
public struct RefusedMeasurement: Sendable, Hashable {
    public var id: String
    public var reason: String

    public init(id: String, reason: String) {
        self.id = id
        self.reason = reason
    }
}

/// The primary's answer to a measurement batch, sent once it is committed: every sample of
/// the batch not refused is stored, by this batch or an earlier one.
public struct MeasurementBatchResult: Sendable, Hashable {
    public var batchID: String
    public var stored: Int
    public var duplicates: Int
    public var refused: [RefusedMeasurement]

    public init(batchID: String, stored: Int, duplicates: Int, refused: [RefusedMeasurement]) {
        self.batchID = batchID
        self.stored = stored
        self.duplicates = duplicates
        self.refused = refused
    }
}
