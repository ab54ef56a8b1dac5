import CareCore
import CarePlanStore

extension CarePlanStore {
    /// The care core over this store: the one way a test changes the record, as production does.
    public var core: CareCore { CareCore(store: self) }
}
