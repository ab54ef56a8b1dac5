import CareCore
import CarePlanStore

extension CarePlanStore {
    /// The care core over this store: the one way a test changes the record, as production does.
    public var core: CareCore { CareCore(store: self) }
}

/// An empty store in a scratch file, on a manual clock: what a core rule's test starts from.
public struct ScratchStore: Sendable {
    public let scratch = Scratch()
    public let clock = ManualClock()
    public let store: CarePlanStore

    public init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"), clock: clock)
    }
}
