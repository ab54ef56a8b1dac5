extension Activity {
    /// Checks that `values` answer this activity's result: their number, type and range
    /// (``ResultKind/check(_:)``), and, for numbers in the unit of a kind of measurement (a
    /// blood pressure in mmHg, say), that a body or a counter could give them.
    public func checkResult(_ values: [OutcomeValue]) throws(ResultError) {
        guard let result else { return }
        try result.check(values)
        guard let range = plausibleRange else { return }
        for value in values {
            let number: Double
            switch value.value {
            case .integer(let n): number = Double(n)
            case .decimal(let d): number = d
            default: continue
            }
            guard range.contains(number) else { throw .implausible(number, range) }
        }
    }

    /// The values a number result may hold: those of the measurement that answers it, or of
    /// the kind of measurement its unit and components name.
    private var plausibleRange: ClosedRange<Double>? {
        guard case .number(let unit, let components)? = result else { return nil }
        let type = measurement ?? MeasurementType.allCases.first {
            $0.unit(unit) != nil && ($0 == .bloodPressure) == (components.count == 2)
        }
        return type.flatMap { type in type.unit(unit).map(type.plausible(in:)) }
    }
}
