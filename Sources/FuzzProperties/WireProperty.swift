import CarePlan
import Foundation
import NIOCore
import SwiftProtobuf
import SyncProtocol

// The conversions from decoded messages to model values (Sources/SyncProtocol), on every
// message an Envelope can carry:
// - a conversion either succeeds or throws MALFORMED_FRAME (typed throws: never a trap);
// - what succeeds loses nothing: converting the model values back to the wire gives the
//   message again (compared in protobuf JSON, which leaves out unknown fields), and the
//   model values survive JSON, the form the store and the companions keep them in;
// - version negotiation picks the highest common version, or fails with VERSION_MISMATCH;
// - a report chunk is refused, or starts a report, or is one (then it is the report it
//   describes, and the report chunked again assembles to the same);
// - a measurement batch is refused whole only for its id; otherwise every sample is read
//   or refused alone, a sample read goes back to the wire unchanged, and one the store
//   would keep survives JSON; a receipt survives conversion;
// - a dose alert converts or is refused, and one that converts goes back to the wire
//   unchanged and survives JSON.
//
// Input: one frame's payload, without its length prefix.

func checkWire(_ bytes: [UInt8]) throws(PropertyBroken) {
    var input = FuzzInput(bytes)
    guard let envelope = try? Frame.decode(ByteBuffer(bytes: input.rest())) else { return }
    switch envelope.body {
    case .applicationContext(let wire): try check(wire)
    case .contextDelta(let wire): try check(wire)
    case .completion(let wire): try check(wire)
    case .historyPage(let page): for entry in page.entries { try check(entry) }
    case .reportChunk(let chunk): try check(chunk)
    case .measurementBatch(let batch): try check(batch)
    case .measurementReceipt(let receipt):
        try requireSame(Caresync_V1_Envelope.measurementReceipt(MeasurementBatchResult(wire: receipt)).measurementReceipt, receipt)
    case .hello(let hello):
        try check(offered: hello.protocolVersions)
        if hello.hasHeldContext { try check(hello.heldContext) }
    case .pairRequest(let request): try check(offered: request.protocolVersions)
    case .doseAlerts(let alerts): for alert in alerts.alerts { try check(alert) }
    default: break
    }
}

private func check(_ wire: Caresync_V1_ApplicationContext) throws(PropertyBroken) {
    for value in wire.days.flatMap(\.events).flatMap(\.values) { try check(value) }
    guard let context = try converted({ () throws(ProtocolError) in try ApplicationContext(wire: wire) }) else { return }
    try requireSame(context.wire, wire)
    try requireJSONRoundTrip(context)
}

/// A delta converts as a context does; applied to the context it names (days of the
/// events it changes, in order), it gives a context that carries its revision and changes.
private func check(_ wire: Caresync_V1_ContextDelta) throws(PropertyBroken) {
    guard let delta = try converted({ () throws(ProtocolError) in try ContextDelta(wire: wire) }) else { return }
    try requireSame(delta.wire, wire)
    guard Date.wireMilliseconds.contains(delta.base.generatedAtMs) else { return }
    let days = delta.base.days.map { day in
        ApplicationContext.Day(day: day, events: delta.changedEvents.filter { $0.day == day }.flatMap(\.events))
    }
    let base = ApplicationContext(
        revision: delta.base.revision, planID: "fuzz", planTitle: "", timeZone: "", days: days,
        generatedAt: Date(timeIntervalSince1970: Double(delta.base.generatedAtMs) / 1000), clock: nil)
    guard base.held == delta.base, let applied = delta.applied(to: base) else { return }
    try require(applied.revision == delta.revision && applied.held.days == delta.base.days, "\(delta) gave \(applied)")
    for changes in delta.changedEvents where !delta.replacedDays.contains(where: { $0.day == changes.day }) {
        for event in changes.events {
            try require(applied.item(event.key) != nil, "\(event.key) lost applying \(delta)")
        }
    }
}

private func check(_ wire: Caresync_V1_HistoryEntry) throws(PropertyBroken) {
    for value in wire.values { try check(value) }
    guard let entry = try converted({ () throws(ProtocolError) in try HistoryEntry(wire: wire) }) else { return }
    try require(entry.range.map { $0.lowerBound <= $0.upperBound } ?? true, "\(entry)")
}

private func check(_ chunk: Caresync_V1_ReportChunk) throws(PropertyBroken) {
    var assembly = ReportAssembly()
    let report: SharedReport
    do {
        guard let whole = try assembly.add(chunk) else { return }
        report = whole
    } catch {
        return try requireMalformed(error)
    }
    try require(report.content.count == Int(chunk.totalBytes) && report.sha256 == chunk.sha256, "\(chunk) gave \(report)")
    var again = ReportAssembly()
    var reassembled: SharedReport?
    do {
        for piece in report.chunks(maximumFrameBytes: 1_024) { reassembled = try again.add(piece.reportChunk) }
    } catch {
        throw fuzzFailure("\(report) chunked again was refused: \(error)")
    }
    try require(reassembled == report, "\(report) chunked again gave \(String(describing: reassembled))")
}

private func check(_ wire: Caresync_V1_MeasurementBatch) throws(PropertyBroken) {
    let batch: MeasurementBatch
    do {
        batch = try MeasurementBatch(wire: wire)
    } catch {
        return try require(error.code == .malformedFrame && !error.isFatal && wire.batchID.isEmpty, "refused with \(error)")
    }
    try require(batch.samples.count + batch.unreadable.count == wire.samples.count, "samples lost: \(wire)")
    try require(batch.sources.count == wire.sources.filter { !$0.id.isEmpty }.count, "sources lost: \(wire)")
    var read = batch.samples.makeIterator()
    for original in wire.samples {
        guard try converted({ () throws(ProtocolError) in try MeasurementSample(wire: original) }) != nil else { continue }
        guard let sample = read.next() else { throw fuzzFailure("fewer samples read than \(wire)") }
        // A moment may come with its end equal to its start: on the wire again, its end is 0.
        var expected = original
        if expected.endMs == expected.startMs { expected.endMs = 0 }
        try requireSame(sample.wire, expected)
        if (try? sample.validate()) != nil { try requireJSONRoundTrip(sample) }
    }
    try require(read.next() == nil, "more samples read than \(wire)")
}

private func check(_ wire: Caresync_V1_DoseAlert) throws(PropertyBroken) {
    guard let alert = try converted({ () throws(ProtocolError) in try DoseAlert(wire: wire) }) else { return }
    try requireSame(alert.wire, wire)
    try requireJSONRoundTrip(alert)
}

private func check(_ wire: Caresync_V1_HeldContext) throws(PropertyBroken) {
    guard let held = try converted({ () throws(ProtocolError) in try HeldContext(wire: wire) }) else { return }
    try requireSame(held.wire, wire)
}

private func check(_ wire: Caresync_V1_Completion) throws(PropertyBroken) {
    for value in wire.values { try check(value) }
    if let key = try converted({ () throws(ProtocolError) in try wire.eventKey() }) {
        try require(key.activityID == wire.activityID && key.day.description == wire.day && key.occurrence == Int(wire.occurrence),
                    "event key \(key) from \(wire)")
    }
    guard let outcome = try converted({ () throws(ProtocolError) in try wire.outcome(device: "fuzz") }) else { return }
    var back = wire
    back.values = outcome.values.map(\.wire)
    back.state = outcome.state.wire
    back.deviceTimeMs = outcome.recordedAt.millisecondsSince1970
    back.reason = outcome.reason ?? ""
    if let clock = outcome.clock { back.clock = clock.wire } else { back.clearClock() }
    try requireSame(back, wire)
    try requireJSONRoundTrip(outcome)
}

private func check(_ wire: Caresync_V1_OutcomeValue) throws(PropertyBroken) {
    guard let value = try converted({ () throws(ProtocolError) in try OutcomeValue(wire: wire) }) else { return }
    try requireSame(value.wire, wire)
    try requireJSONRoundTrip(value)
}

private func check(offered: [UInt32]) throws(PropertyBroken) {
    let common = Set(offered).intersection(ProtocolVersion.supported)
    let chosen: UInt32
    do {
        chosen = try ProtocolVersion.negotiate(offered: offered)
    } catch {
        return try require(common.isEmpty && error.code == .versionMismatch, "\(error) for \(offered)")
    }
    try require(chosen == common.max(), "chose \(chosen) of \(offered)")
}

/// What `convert` gives, or `nil` once its refusal is checked to be MALFORMED_FRAME.
private func converted<T>(_ convert: () throws(ProtocolError) -> T) throws(PropertyBroken) -> T? {
    do {
        return try convert()
    } catch {
        try requireMalformed(error)
        return nil
    }
}

private func requireMalformed(_ error: ProtocolError, file: StaticString = #fileID, line: UInt = #line) throws(PropertyBroken) {
    try require(error.code == .malformedFrame, "refused with \(error)", file: file, line: line)
}

/// Whether two messages are the same but for unknown fields.
private func requireSame<M: SwiftProtobuf.Message>(
    _ converted: M, _ original: M, file: StaticString = #fileID, line: UInt = #line
) throws(PropertyBroken) {
    let (a, b) = (try? converted.jsonString(), try? original.jsonString())
    try require(a != nil && a == b, "lost in conversion:\n\(b ?? "?")\nbecame\n\(a ?? "?")", file: file, line: line)
}

private func requireJSONRoundTrip<T: Codable & Equatable>(
    _ value: T, file: StaticString = #fileID, line: UInt = #line
) throws(PropertyBroken) {
    let again: T
    do {
        again = try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    } catch {
        throw fuzzFailure("\(value) does not survive JSON: \(error)", file: file, line: line)
    }
    try require(again == value, "not equal after JSON: \(value)\n\(again)", file: file, line: line)
}
