import CarePlan
import Foundation
import NIOCore
import SyncNode
import SyncProtocol
import Clocks

/// What one run measured, for the closing tables.
struct RunFigures {
    var companions: Int
    var security: TransportSecurity
    /// Whether the companions applied deltas (else every context came whole).
    var deltas: Bool
    /// Each pairing, and all of them from the first code to the last PairAccept.
    var pairing = Samples()
    var pairingTotal = Double.nan
    var roundTrip = Samples()
    /// The floor paced as the round trips were (``Floor/Probe``), with `--think-ms` only.
    var pacedFloor = Samples()
    var fanOut = Samples()
    /// Accepted completions per second, every companion at once.
    var throughput = Double.nan
    /// The process's peak resident memory in the run, and how far above the run's start it
    /// rose; `nil` where the kernel would not reset the peak.
    var peakRSS: Int?
    var addedRSS: Int?
    /// The size of a whole context frame.
    var contextBytes: Int?

    var label: String { "\(SyncBenchmark.label(companions)), \(security.label), \(deltas ? "deltas" : "snapshots")" }
}

extension SyncBenchmark {
    /// One run: `count` companions paired over TLS, then served over `security`, applying
    /// deltas or not.
    func measure(companions count: Int, security: TransportSecurity, deltas: Bool, today: CalendarDay) async throws -> RunFigures {
        var figures = RunFigures(companions: count, security: security, deltas: deltas)
        let cluster = try await Cluster(
            companions: count, security: security, deltas: deltas, plan: Self.plan(occurrences: occurrences, start: today),
            today: today, companionDirectory: companionDirectory.map { URL(fileURLWithPath: $0) })
        let watches = (count + 1) / 2
        print("\(figures.label) (\(watches) watch\(watches == 1 ? "" : "es"), \(count / 2) widget\(count / 2 == 1 ? "" : "s")):")
        do {
            let clock = ContinuousClock()
            (figures.pairing, figures.pairingTotal) = try await cluster.pair(
                width: pairingsAtOnce, timeout: .seconds(timeout), until: clock.now + .seconds(maxSeconds))
            report("pairing over TLS, \(pairingsAtOnce) at a time: each", figures.pairing.summary)
            report("pairing: every companion", duration(figures.pairingTotal))
            let peakIsPerRun = resetPeakResidentMemory()
            let baseline = residentMemory() ?? 0
            let connect = try await clock.measure { try await cluster.start(timeout: .seconds(timeout)) }
            report("connect, every first context received", duration(connect.inSeconds))
            if let context = cluster.nodes.first?.context {
                figures.contextBytes = try Frame.encode(.context(context)).readableBytes
                report("whole context frame", bytes(figures.contextBytes!))
            }
            let connected = residentMemory() ?? 0
            if thinkMs > 0 {
                try await Floor.probing { probe in try await roundTrips(cluster, pacedFloor: probe, into: &figures) }
            } else {
                try await roundTrips(cluster, pacedFloor: nil, into: &figures)
            }
            figures.throughput = try await sustained(cluster)
            let after = residentMemory() ?? 0
            report("RSS: before → connected → after", "\(bytes(baseline)) → \(bytes(connected)) → \(bytes(after))")
            if let peak = peakResidentMemory() {
                if peakIsPerRun { (figures.peakRSS, figures.addedRSS) = (peak, peak - baseline) }
                report("peak RSS, primary and companions together",
                       bytes(peak) + (peakIsPerRun ? "  (+\(bytes(peak - baseline)) over before)" : "  (process peak so far)"))
            }
            let problems = cluster.fleet.members.reduce(0) { $0 + $1.problems }
            if problems > 0 {
                report("disconnects and errors", "\(problems), last: \(cluster.fleet.members.compactMap(\.lastProblem).last ?? "")")
            }
        } catch {
            _ = await cluster.stop(within: .seconds(timeout))
            throw error
        }
        if let problem = await cluster.stop(within: .seconds(timeout)) { throw BenchmarkFailure(problem) }
        return figures
    }

    /// Completions one at a time, from each companion in turn: how long `complete()` takes
    /// to return `.accepted`, and how long until every other companion holds a context of
    /// that revision. Each waits for the one before to reach every companion, then for
    /// `--think-ms`; so does a round trip of the `pacedFloor` (with `--think-ms` only) after it.
    private func roundTrips(_ cluster: Cluster, pacedFloor: Floor.Probe?, into figures: inout RunFigures) async throws {
        var refused = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(maxSeconds)
        var n = 0
        while n < Self.warmUp + completions && clock.now < deadline {
            let sender = n % cluster.nodes.count
            let key = cluster.keys[n % cluster.keys.count]
            let observer = cluster.nodes[(sender + 1) % cluster.nodes.count]
            let before = observer.context
            try await think()
            let start = clock.now
            let result = try await cluster.nodes[sender].complete(key)
            let end = clock.now
            n += 1
            guard case .accepted(let revision, _, _) = result else {
                refused += 1
                continue
            }
            guard await cluster.fleet.wait(within: .seconds(timeout), until: { $0.allSatisfy { $0.revision >= revision } }) else {
                throw BenchmarkFailure("not every companion received revision \(revision) within \(duration(timeout))")
            }
            if n == 1, let before, let after = observer.context, let delta = ContextDelta(from: before, to: after) {
                report("delta frame for one completion", bytes(try Frame.encode(.contextDelta(delta)).readableBytes))
            }
            // The floor waits as long before its round trip, after every companion has it.
            var floorSample: Double?
            if let pacedFloor {
                try await think()
                floorSample = try await pacedFloor.sample()
            }
            guard n > Self.warmUp else { continue }
            figures.roundTrip.append(start.duration(to: end).inSeconds)
            if let floorSample { figures.pacedFloor.append(floorSample) }
            let others = cluster.fleet.members.enumerated().filter { $0.offset != sender }.map(\.element.reachedAt)
            if let last = others.max() { figures.fanOut.append(start.duration(to: last).inSeconds) }
        }
        report("round trip: complete() until .accepted", figures.roundTrip.tailSummary)
        if thinkMs > 0 { report("the floor, paced alike (\(thinkMs) ms before each)", figures.pacedFloor.tailSummary) }
        report("fan-out: until every other companion has it", cluster.nodes.count == 1 ? "— (no other companion)" : figures.fanOut.summary)
        if refused > 0 { report("completions not accepted", "\(refused)") }
        if n < Self.warmUp + completions { report("stopped early", "at --max-seconds \(maxSeconds)") }
    }

    /// Waits `--think-ms` (a person between two taps, not a condition: on this machine idle
    /// cores and timestamps a commit updates make a completion after a pause dearer).
    private func think() async throws {
        if thinkMs > 0 { try await Task.sleep(for: .milliseconds(thinkMs)) }
    }

    /// Every companion completing one event after another at once, for `seconds` or
    /// `sustainedLimit` completions; then how far the contexts lag behind. Returns the
    /// accepted completions per second.
    private func sustained(_ cluster: Cluster) async throws -> Double {
        let keys = cluster.keys
        let count = cluster.nodes.count
        let each = max(1, sustainedLimit / count)
        let contextsBefore = cluster.fleet.members.reduce(0) { $0 + $1.contexts }
        let revisionBefore = try await cluster.store.revision()
        let senders = cluster.nodes.map { node in
            { @Sendable (key: EventKey) async -> Bool in if case .accepted = try? await node.complete(key) { true } else { false } }
        }
        let (throughput, end) = await completeAtOnce(
            senders, keys: keys, each: each, seconds: seconds, label: "sustained completions, all companions at once")
        let revision = try await cluster.store.revision()
        guard await cluster.fleet.wait(within: .seconds(timeout), until: { $0.allSatisfy { $0.revision >= revision } }) else {
            throw BenchmarkFailure("not every companion caught up with revision \(revision) within \(duration(timeout)) after the sustained phase")
        }
        let members = cluster.fleet.members
        let lag = members.map(\.reachedAt).max().map { max(0, end.duration(to: $0).inSeconds) } ?? 0
        let contexts = members.reduce(0) { $0 + $1.contexts } - contextsBefore
        report("every companion current, after the last reply", lag > 0 ? "+" + duration(lag) : "already")
        report("contexts received, per companion", "\(contexts / count) for \(revision - revisionBefore) revisions")
        return throughput
    }
}

/// Every sender completing one event after another at once, each its own share of `keys`,
/// until it has sent `each` or `seconds` have passed; reports the accepted completions per
/// second as `label` (and any not accepted), and returns that rate and when the last
/// answer came.
func completeAtOnce(
    _ senders: [@Sendable (EventKey) async -> Bool], keys: [EventKey], each: Int, seconds: Double, label: String
) async -> (throughput: Double, end: ContinuousClock.Instant) {
    let start = ContinuousClock.now
    let deadline = start + .seconds(seconds)
    let count = senders.count
    let (accepted, other) = await withTaskGroup(of: (accepted: Int, other: Int).self) { group in
        for (index, send) in senders.enumerated() {
            group.addTask {
                var tally = (accepted: 0, other: 0)
                var n = 0
                while n < each && ContinuousClock.now < deadline {
                    let accepted = await send(keys[(index + n * count) % keys.count])
                    n += 1
                    if accepted { tally.accepted += 1 } else { tally.other += 1 }
                }
                return tally
            }
        }
        return await group.reduce(into: (0, 0)) { $0.0 += $1.accepted; $0.1 += $1.other }
    }
    let end = ContinuousClock.now
    let elapsed = start.duration(to: end).inSeconds
    let throughput = Double(accepted) / elapsed
    report(label, String(format: "%.0f/s  (%d accepted in %@)", throughput, accepted, duration(elapsed)))
    if other > 0 { report("sustained completions not accepted", "\(other)") }
    return (throughput, end)
}
