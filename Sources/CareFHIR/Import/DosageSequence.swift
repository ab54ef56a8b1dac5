/// An order's dosage instructions in the order they apply (FHIR `Dosage.sequence`):
/// dosages with the same sequence apply together, a higher sequence follows a lower one
/// ("2 tablets a day for 3 days, then 1 tablet a day"), and dosages without a sequence
/// apply from the order's start, beside all others, after the numbered ones in the list.
///
/// A step can follow only one that ends: after a dosage without an end (many orders
/// number doses of the same day 1 and 2), the next step is read as applying beside it.
/// The schedules and the sentence of an order both read it so.
struct DosageSequence {
    /// One step: its sequence (`nil` for the dosages without one) and its dosages with
    /// their index in the order.
    struct Step {
        var sequence: Int?
        var dosages: [(index: Int, dosage: Dosage)]
        /// It starts the day after the numbered step before it ends.
        var followsPrevious = false
        /// It comes after a numbered step that never ends, so it applies beside that one.
        var besidePrevious = false
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
        var numbered = Dictionary(grouping: indexed.filter { $0.dosage.sequence != nil }, by: { $0.dosage.sequence! })
            .sorted { $0.key < $1.key }.map { Step(sequence: $0.key, dosages: $0.value) }
        for position in numbered.indices.dropFirst() {
            let ends = numbered[position - 1].dosages.allSatisfy { $0.dosage.timing?.ends == true }
            numbered[position].followsPrevious = ends
            numbered[position].besidePrevious = !ends
        }
        let unnumbered = indexed.filter { $0.dosage.sequence == nil }
        steps = numbered + (unnumbered.isEmpty ? [] : [Step(sequence: nil, dosages: unnumbered)])
    }

    /// The number of dosage instructions.
    var count: Int { steps.reduce(0) { $0 + $1.dosages.count } }
}

extension Timing {
    /// Whether its doses come to an end: listed events, a count, or bounds with an end.
    var ends: Bool {
        guard event?.isEmpty != false else { return true }
        guard let r = `repeat` else { return false }
        return r.count != nil || r.boundsDuration != nil || r.boundsRange?.high != nil || r.boundsPeriod?.end != nil
    }
}
