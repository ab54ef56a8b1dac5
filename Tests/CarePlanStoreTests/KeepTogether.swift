import CarePlan
@_spi(CareCore) import CarePlanStore

extension CarePlanStore {
    /// Keeps `outcomes` in one transaction through the store's writer, judging nothing: what
    /// the change feed's tests need, several changes in one commit. (Every other test records
    /// through the care core.)
    func keepTogether(_ outcomes: [(key: EventKey, outcome: Outcome)]) async throws {
        try await transaction { record in
            for (key, outcome) in outcomes {
                let version = try record.outcomes.version(governing: key).version
                _ = try record.outcomes.keep(outcome, for: key, version: version, messageID: nil, stands: true)
            }
        }
    }
}
