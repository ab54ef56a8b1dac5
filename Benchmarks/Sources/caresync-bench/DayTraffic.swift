import BenchmarkWorkloads
import CareCore
import CarePlan
import CarePlanDocument
import CarePlanStore
import Foundation
import NIOPosix
import SyncProtocol

/// What a watch receives over a typical day: a primary (a process of its own) on the example
/// plan, one watch that takes context deltas and one that takes every context whole, while a
/// third device records each of the day's events once (an assessment with an answer), one
/// after another, each reaching both watches before the next (as a day spreads them out).
/// Bytes are counted on the socket, TLS records included; the day's keepalive is its pings'
/// answers, one every interval.
struct DayTraffic {
    var events: Int
    var contexts: Int
    var deltaBytes: Int
    var wholeBytes: Int
    /// One Pong as it arrives (frame and TLS record), and the ping interval.
    var pongBytes: Int
    var pingInterval: Duration

    var keepaliveBytesPerDay: Int { Int(86_400 / pingInterval.inSeconds) * pongBytes }

    static func measure(plan path: String, in directory: URL, timeout: Duration) async throws -> DayTraffic {
        let store = try await CarePlanStore(path: directory.appendingPathComponent("day.sqlite").path)
        let today = CalendarDay.containing(Date(), in: .gmt)
        let plan = try PlanDocument.load(path: path, defaultStart: today)
        let zoneToday = CalendarDay.containing(Date(), in: plan.timeZone)
        _ = try await CareCore(store: store).plan.load(plan, effectiveFrom: zoneToday, device: "bench")
        let events = try await store.outcomes.events(on: zoneToday)
        // Even indices are watches: one taking deltas, one taking contexts whole, one recording.
        let (deltas, whole, recorder) = (
            try await FleetClient.registered(index: 0, in: store, name: "Day watch"),
            try await FleetClient.registered(index: 2, in: store, name: "Day watch"),
            try await FleetClient.registered(index: 4, in: store, name: "Day watch"))
        let primary = try await PrimaryProcess.start(
            store: store.path, log: directory.appendingPathComponent("day-primary.log"), timeout: timeout)
        let (deltaSeen, wholeSeen) = try await primary.serving([deltas, whole, recorder], within: timeout) {
            try await recordDay(events, by: recorder, watchedBy: [deltas, whole], primary: primary, timeout: timeout)
            return (deltas.seen, whole.seen)
        }
        guard let pingInterval = deltaSeen.pingInterval else { throw BenchmarkFailure("the watch had no HelloAck") }
        let pong = try Frame.encode(.pong(nonce: 5760)).readableBytes  // a nonce of the day's last ping
        return DayTraffic(
            events: events.count, contexts: deltaSeen.contexts, deltaBytes: deltaSeen.bytesReceived, wholeBytes: wholeSeen.bytesReceived,
            pongBytes: pong + tlsRecordOverhead, pingInterval: pingInterval)
    }

    /// What a TLS 1.3 record adds to what it carries: a 5-byte header, the content type and a
    /// 16-byte tag.
    static let tlsRecordOverhead = 22

    /// Connects the watches and `recorder`, then records each of `events` and waits until both
    /// watches hold a context with it.
    private static func recordDay(
        _ events: [Event], by recorder: FleetClient, watchedBy watches: [FleetClient], primary: PrimaryProcess, timeout: Duration
    ) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        for (index, watch) in watches.enumerated() {
            try await watch.connect(port: primary.port, primary: primary.fingerprint, group: group, deltas: index == 0)
        }
        try await recorder.connect(port: primary.port, primary: primary.fingerprint, group: group)
        for event in events {
            let result = try await recorder.complete(event.key, values: Workloads.answer(to: event.activity.result))
            guard case .accepted(let revision, _, _) = result else { throw BenchmarkFailure("\(event.key): \(result)") }
            guard await poll(within: timeout, until: { watches.allSatisfy { $0.seen.revision >= revision } }) else {
                throw BenchmarkFailure("a watch had no context with \(event.key) within \(timeout)")
            }
        }
    }
}
