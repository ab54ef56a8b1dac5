extension Activity {
    /// Checks that `values` answer this activity's result: their number, type and range
    /// (``ResultKind/check(_:)``), the one check every outcome meets, typed or sent.
    public func checkResult(_ values: [OutcomeValue]) throws(ResultError) {
        guard let result else { return }
        try result.check(values)
    }
}
