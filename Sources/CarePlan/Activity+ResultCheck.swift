extension Activity {
    /// Checks that `values` answer this activity: its result's number, type, unit, range and
    /// shape (``ResultKind/check(_:)``), the one check every outcome meets, typed or sent.
    ///
    /// An intervention asks for no value: it is done or not done, so values on one are
    /// refused. A medication's dose is the exception (``isMedication``): it may carry what was
    /// taken (`--value 2 --unit tablet` on a dose as needed), which the FHIR export gives as
    /// the administration's dose. An assessment that asks for no particular result takes what
    /// it is given.
    public func checkResult(_ values: [OutcomeValue]) throws(ResultError) {
        if let result { return try result.check(values) }
        guard kind == .assessment || isMedication || values.isEmpty else { throw .noValueAsked(found: values.count) }
    }

    /// Whether it is a medication's dose: it came from an order (``medication``) or is tagged
    /// `medication`, as the medications page and `caresync meds` find them.
    public var isMedication: Bool {
        medication != nil || tags.contains("medication")
    }
}
