/// An order's dosage instructions in the order they apply (FHIR `Dosage.sequence`):
/// dosages with the same sequence apply together, a higher sequence follows a lower one
/// ("2 tablets a day for 3 days, then 1 tablet a day"), and dosages without a sequence
/// apply from the order's start, beside all others, after the numbered ones in the list.
///
/// A step follows only one that ends. A step after one without an end (no bounds, count
/// or events) has no known start: it is held for review, never scheduled beside the step
/// before (that would have the patient take a loading dose and its maintenance dose on
/// the same days), and so is every step after it. The schedules, the holds and the
/// sentence of an order all read it so.
struct DosageSequence {
    /// One step: its sequence (`nil` for the dosages without one) and its dosages with
    /// their index in the order.
    struct Step {
        var sequence: Int?
        var dosages: [(index: Int, dosage: Dosage)]
        /// It starts the day after the numbered step before it ends.
        var followsPrevious = false
        /// It follows a numbered step that never ends (or one held): not scheduled.
        var held = false
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
            let previous = numbered[position - 1]
            let ends = !previous.held && previous.dosages.allSatisfy { $0.dosage.timing?.ends == true }
            numbered[position].followsPrevious = ends
            numbered[position].held = !ends
        }
        let unnumbered = indexed.filter { $0.dosage.sequence == nil }
        steps = numbered + (unnumbered.isEmpty ? [] : [Step(sequence: nil, dosages: unnumbered)])
    }

    /// The number of dosage instructions.
    var count: Int { steps.reduce(0) { $0 + $1.dosages.count } }
}

extension Timing {
    /// Whether its doses come to an end: listed events, a count, or bounds with an end.
    /// `duration` does not end them: it is how long each dose takes (an infusion over an
    /// hour), not how long the course lasts.
    var ends: Bool {
        guard event?.isEmpty != false else { return true }
        guard let r = `repeat` else { return false }
        return r.count != nil || r.boundsDuration != nil || r.boundsRange?.high != nil || r.boundsPeriod?.end != nil
    }
}
