import CarePlan

/// An order's dosage instructions in the order they apply (FHIR `Dosage.sequence`):
/// dosages with the same sequence apply together, a higher sequence follows a lower one
/// ("2 tablets a day for 3 days, then 1 tablet a day"), and dosages without a sequence
/// apply from the order's start, beside all others, after the numbered ones in the list.
struct DosageSequence {
    /// One step: its sequence (`nil` for the dosages without one) and its dosages with
    /// their index in the order.
    struct Step {
        var sequence: Int?
        var dosages: [(index: Int, dosage: Dosage)]
    }

    /// Where a numbered step's schedules end, which is where the next one starts.
    enum End: Equatable {
        /// No numbered step came before.
        case none
        /// The last day of the step's schedules (`nil`: it scheduled nothing).
        case on(CalendarDay?)
        /// A schedule of the step never ends, so the next never starts.
        case never

        /// This end with a schedule's last day (`nil`: never) included.
        func including(_ last: CalendarDay?) -> End {
            switch (self, last) {
            case (.never, _), (_, nil): .never
            case (.on(let day?), let last?): .on(max(day, last))
            case (_, let last?): .on(last)
            }
        }
    }

    let steps: [Step]
    /// Whether the order gives no dosage: it then has one step with an empty dosage.
    let isEmpty: Bool

    init(_ dosages: [Dosage]) {
        isEmpty = dosages.isEmpty
        guard !dosages.isEmpty else {
            steps = [Step(sequence: nil, dosages: [(0, Dosage())])]
            return
        }
        let indexed = dosages.enumerated().map { (index: $0.offset, dosage: $0.element) }
        let numbered = Dictionary(grouping: indexed.filter { $0.dosage.sequence != nil }, by: { $0.dosage.sequence! })
            .sorted { $0.key < $1.key }.map { Step(sequence: $0.key, dosages: $0.value) }
        let unnumbered = indexed.filter { $0.dosage.sequence == nil }
        steps = numbered + (unnumbered.isEmpty ? [] : [Step(sequence: nil, dosages: unnumbered)])
    }

    /// The number of dosage instructions.
    var count: Int { steps.reduce(0) { $0 + $1.dosages.count } }
}
