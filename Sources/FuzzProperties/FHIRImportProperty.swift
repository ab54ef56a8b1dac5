import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation

// The pure part of `caresync fhir import`: FHIRInput.parse, then OrderMapper.map for each
// order (what FHIRImporter.run does before it writes to the store), on any bytes:
// - malformed input is refused with a FHIRError (typed throws: never a trap), a malformed
//   order alone with its path;
// - each order's payload, which the store keeps as the activity's source, reads back as
//   the same order, and each activity finds its dosage instruction in it again;
// - an active order without modifier extensions becomes activities with distinct `rx-`
//   identifiers that survive JSON (the store's form) and whose schedules expand; any other
//   order becomes none;
// - every warning points into its order.
//
// Input: a FHIR JSON document. Its length picks the language of the instructions: even
// English, odd German.

func checkFHIRImport(_ bytes: [UInt8]) throws(PropertyBroken) {
    var input = FuzzInput(bytes)
    let parsed: FHIRInput
    do {
        parsed = try FHIRInput.parse(Data(input.rest()))
    } catch {
        try requireInputError(error)
        return
    }
    let mapper = bytes.count % 2 == 0 ? english : german
    for order in parsed.orders {
        try checkPayload(order)
        let mapped: MappedOrder
        do {
            mapped = try mapper.map(order)
        } catch {
            try requireInputError(error)
            continue
        }
        try check(order, mapped: mapped)
    }
}

private let today = CalendarDay("2026-11-23")!
private let zone = TimeZone(identifier: "Europe/Vienna")!
private let english = OrderMapper(today: today, timeZone: zone, language: try! Language("en"))
private let german = OrderMapper(today: today, timeZone: zone, language: try! Language("de"))

private func requireInputError(_ error: FHIRError, file: StaticString = #fileID, line: UInt = #line) throws(PropertyBroken) {
    if case .server = error { throw fuzzFailure("a server error from a file: \(error)", file: file, line: line) }
}

/// The order's payload reads back as the same order.
private func checkPayload(_ order: ImportedOrder) throws(PropertyBroken) {
    let again: [ImportedOrder]
    do {
        again = try FHIRInput.parse(order.payload).orders
    } catch {
        throw fuzzFailure("the payload of \(order.reference) does not read back: \(error)")
    }
    try require(again.count == 1, "the payload of \(order.reference) holds \(again.count) orders")
    let first = again[0]
    // A key made from content may carry a suffix that tells apart equal orders of one document.
    let contentKeyed = first.reference.contains(ImportedOrder.contentKeySystem)
    func same(_ alone: String, _ inDocument: String) -> Bool {
        alone == inDocument || (contentKeyed && inDocument.hasPrefix(alone + "-"))
    }
    try require(same(first.reference, order.reference) && same(first.key, order.key) && first.status == order.status
                && first.dosages == order.dosages && first.authoredOn == order.authoredOn && first.subject == order.subject,
            "the payload of \(order.reference) reads back as another order:\n\(order)\n\(first)")
}

private func check(_ order: ImportedOrder, mapped result: MappedOrder) throws(PropertyBroken) {
    let source = ActivitySource(system: OrderMapper.system, reference: order.reference, payload: order.payload)
    let schedulable = order.status == "active" && order.modifierExtensions.isEmpty
    try require((result.disposition == .scheduled) == schedulable, "\(order.status) became \(result.disposition)")
    try require(result.disposition == .scheduled || result.activities.isEmpty, "activities for an order that is \(order.status)")
    let identifiers = result.activities.map(\.activity.identifier)
    try require(Set(identifiers).count == identifiers.count && identifiers.allSatisfy { $0.hasPrefix("rx-") },
            "activity identifiers \(identifiers)")
    for (activity, firstDay) in result.activities {
        try require(firstDay == activity.schedule.start, "first day \(firstDay) of \(activity.schedule)")
        try requireExpandable(activity.schedule)
        let again: Activity
        do {
            again = try JSONDecoder().decode(Activity.self, from: JSONEncoder().encode(activity))
        } catch {
            throw fuzzFailure("\(activity.identifier) does not survive JSON: \(error)")
        }
        try require(again == activity, "not equal after JSON:\n\(activity)\n\(again)")
        if !order.dosages.isEmpty {
            try require(OrderMapper.dosage(of: activity, in: source) != nil, "\(activity.identifier) lost its dosage instruction")
        }
    }
    for warning in result.warnings {
        try require(warning.path.hasPrefix(order.path), "warning \(warning) outside \(order.path)")
    }
}
