import CarePlan
import CarePlanDocument
import Foundation

// PlanDocument.decode, the reader of care-plan documents, on any bytes:
// - a document it refuses is refused with a PlanDocumentError (typed throws: never a
//   trap) that names the file and a JSON path (`$…`);
// - a plan it accepts is written by PlanDocument.encode and read back equal;
// - every schedule of an accepted plan can be expanded on any day, near its start or
//   far from it, to a count within the schedule's bounds.
//
// Input: the document's bytes.

func checkPlanDocument(_ bytes: [UInt8]) throws(PropertyBroken) {
    var input = FuzzInput(bytes)
    let plan: Plan
    do {
        plan = try PlanDocument.decode(Data(input.rest()), file: "fuzz.json", defaultStart: defaultStart)
    } catch {
        try require(error.file == "fuzz.json" && error.path.hasPrefix("$") && !error.message.isEmpty, "refused with \(error)")
        return
    }
    let again: Plan
    do {
        again = try PlanDocument.decode(PlanDocument.encode(plan), file: "again.json", defaultStart: defaultStart)
    } catch {
        throw fuzzFailure("an accepted plan does not survive encode → decode: \(error)")
    }
    try require(again == plan, "not equal after encode → decode:\n\(plan)\n\(again)")
    for activity in plan.activities { try requireExpandable(activity.schedule) }
}

private let defaultStart = CalendarDay("2026-11-23")!
