@_spi(CareCore) import CarePlanStore

/// How far each named reader of the record has got (an export to one server, say): the
/// revision of the change log it has processed, or for a reader of measurements the
/// measurement sequence. A cursor never moves back, so a slower writer cannot undo a faster
/// one's progress. Not itself a change.
public struct ReaderCursors: Sendable {
    let store: CarePlanStore

    /// Records that `name` has processed up to `revision` (ignored if it had got further).
    public func advance(_ name: String, to revision: Int) async throws(CarePlanStoreError) {
        try await store.transaction { record in
            guard try record.measurements.cursor(name).map({ revision > $0 }) ?? true else { return }
            try record.measurements.keepCursor(name, at: revision)
        }
    }
}
