import GRDB

/// Typed access to the columns of a result's current row, by index: decoders read GRDB's
/// rows and a ``DirectStatement`` alike. A column that is NULL reads as `nil`.
protocol ColumnReading {
    func int(_ index: Int) -> Int?
    func double(_ index: Int) -> Double?
    func text(_ index: Int) -> String?
}

extension ColumnReading {
    /// The value of a column the schema never leaves NULL.
    func int(required index: Int) throws -> Int { try present(int(index), index) }
    func double(required index: Int) throws -> Double { try present(double(index), index) }
    func text(required index: Int) throws -> String { try present(text(index), index) }

    private func present<T>(_ value: T?, _ index: Int) throws -> T {
        guard let value else { throw CarePlanStoreError.database("column \(index) is NULL where a value was expected") }
        return value
    }
}

extension Row: ColumnReading {
    func int(_ index: Int) -> Int? { self[index] }
    func double(_ index: Int) -> Double? { self[index] }
    func text(_ index: Int) -> String? { self[index] }
}
