import CareCore
import CarePlan
import CarePlanStore

/// An outcome the care core refused: the rejection and its detail, as the answer said them.
public struct OutcomeRefused: Error, Equatable, CustomStringConvertible {
    public var rejection: Rejection?
    public var detail: String?

    /// The refusal `error` makes.
    public init(_ error: CarePlanStoreError) {
        rejection = Rejection(error)
        detail = error.description
    }

    init(_ receipt: CompletionReceipt) {
        rejection = receipt.rejection
        detail = receipt.detail
    }

    public var description: String { "refused (\(rejection?.rawValue ?? "?")): \(detail ?? "")" }
}

extension CarePlanStore {
    /// The care core's answer to `outcome` for the event `key`, sent under `messageID` (a new
    /// id when `nil`) by the command line on this machine, accepted or refused.
    public func complete(
        _ outcome: Outcome, for key: EventKey, messageID: String? = nil, futureDays: FutureDays = .refused
    ) async throws(CarePlanStoreError) -> CompletionReceipt {
        try await CareCore(store: self).outcomes.record(
            outcome, for: key, messageID: messageID, by: .commandLine(device: outcome.device, futureDays: futureDays))
    }

    /// Records `outcome` for the event `key` through the care core, as the command line on
    /// this machine does (the one way the record changes), and returns the revision that
    /// keeps it; a refusal throws ``OutcomeRefused``.
    @discardableResult
    public func record(
        _ outcome: Outcome, for key: EventKey, futureDays: FutureDays = .refused, messageID: String? = nil
    ) async throws -> Int {
        let receipt = try await complete(outcome, for: key, messageID: messageID, futureDays: futureDays)
        guard receipt.status == .accepted, let revision = receipt.revision else { throw OutcomeRefused(receipt) }
        return revision
    }
}

extension CarePlanStore {
    /// Records `measurements` from `device` through the care core, as a companion's arrive.
    @discardableResult
    public func record(
        _ measurements: [MeasurementSample], sources: [MeasurementSource], device: String
    ) async throws -> MeasurementReceipt {
        try await CareCore(store: self).measurements.record(measurements, sources: sources, device: device)
    }
}
