import ArgumentParser
import Foundation
import SyncNode

/// The transports `caresync-bench sync --security` runs.
enum SecurityChoice: String, ExpressibleByArgument, CaseIterable {
    case tls, plaintext, both

    /// Plaintext first: the run without TLS is what TLS is compared against.
    var transports: [TransportSecurity] {
        switch self {
        case .tls: [.tls]
        case .plaintext: [.unencrypted]
        case .both: [.unencrypted, .tls]
        }
    }
}

extension TransportSecurity {
    var label: String { self == .tls ? "TLS 1.3" : "plaintext" }
}

/// The contexts `caresync-bench sync --contexts` has companions receive: deltas (companions
/// offer `context-delta`), snapshots (every context whole, as a client that knows only
/// those) or both, one run each.
enum ContextChoice: String, ExpressibleByArgument, CaseIterable {
    case deltas, snapshots, both

    /// Whether companions apply deltas, for each run; snapshots first, what deltas are compared against.
    var forms: [Bool] {
        switch self {
        case .deltas: [true]
        case .snapshots: [false]
        case .both: [false, true]
        }
    }
}

/// The peers `caresync-bench sync --peer` measures on the same workload.
enum PeerChoice: String, ExpressibleByArgument, CaseIterable {
    case mosquitto, none
}

/// The closing tables: each run's round trips against the floor, and its sustained
/// completions against SQLite's batched inserts; then, for each companion count measured
/// both ways, TLS against plaintext and deltas against snapshots; then each run against the
/// peer's run of its companion count.
func reportClosing(_ runs: [RunFigures], floor: Floor, peers: [PeerFigures]) {
    let paced = runs.contains { !$0.pacedFloor.seconds.isEmpty }
    print((paced ? "round trip ÷ the floor paced alike (÷ the floor back to back)" : "round trip ÷ floor")
        + "; sustained completions ÷ SQLite batched insert (\(Floor.batchRows) rows a commit):")
    for run in runs {
        let (p50, p99) = (run.roundTrip.percentile(50), run.roundTrip.percentile(99))
        let against = paced
            ? String(format: "p50 %.1f× (%.1f×)  p99 %.1f× (%.1f×)", p50 / run.pacedFloor.percentile(50), p50 / floor.both.percentile(50),
                     p99 / run.pacedFloor.percentile(99), p99 / floor.both.percentile(99))
            : String(format: "p50 %.1f×  p99 %.1f×", p50 / floor.both.percentile(50), p99 / floor.both.percentile(99))
        report(run.label, against + "  sustained " + ratio(run.throughput, floor.batchedInsertRate))
    }
    compare(runs, "TLS", "plaintext", by: { $0.security == .tls }, same: { $0.deltas == $1.deltas })
    compare(runs, "deltas", "snapshots", by: \.deltas, same: { $0.security == $1.security })
    guard !peers.isEmpty else { return }
    print("CareSync ÷ Mosquitto (above 1× CareSync is slower; for sustained completions, below 1× it serves fewer):")
    row("", ["round trip", "", "fan-out", "", "sustained"], width: 36)
    row("", ["p50", "p99", "p50", "p99", "per second"], width: 36)
    for run in runs {
        guard let peer = peers.first(where: { $0.clients == run.companions }) else { continue }
        row(run.label, [
            ratio(run.roundTrip.percentile(50), peer.roundTrip.percentile(50)),
            ratio(run.roundTrip.percentile(99), peer.roundTrip.percentile(99)),
            ratio(run.fanOut.percentile(50), peer.fanOut.percentile(50)),
            ratio(run.fanOut.percentile(99), peer.fanOut.percentile(99)),
            ratio(run.throughput, peer.throughput),
        ], width: 36)
    }
}

/// A table of `runs` where `by` holds against their peers where it does not (same companion
/// count, and `same`): ratios, then what the first adds to the round trip's p50.
private func compare(
    _ runs: [RunFigures], _ name: String, _ peerName: String, by isFirst: (RunFigures) -> Bool,
    same: (RunFigures, RunFigures) -> Bool
) {
    let pairs = runs.filter(isFirst).compactMap { run in
        runs.first { !isFirst($0) && $0.companions == run.companions && same($0, run) }.map { (run, peer: $0) }
    }
    guard !pairs.isEmpty else { return }
    print("\(name) ÷ \(peerName) (above 1× \(name) is slower or larger; for sustained completions, below 1× it serves fewer):")
    row("", ["round trip", "", "fan-out", "", "sustained", "peak RSS", "RSS added", "\(name) adds"])
    row("", ["p50", "p99", "p50", "p99", "per second", "", "at peak", "to p50"])
    for (run, peer) in pairs {
        row(SyncBenchmark.label(run.companions), [
            ratio(run.roundTrip.percentile(50), peer.roundTrip.percentile(50)),
            ratio(run.roundTrip.percentile(99), peer.roundTrip.percentile(99)),
            ratio(run.fanOut.percentile(50), peer.fanOut.percentile(50)),
            ratio(run.fanOut.percentile(99), peer.fanOut.percentile(99)),
            ratio(run.throughput, peer.throughput),
            ratio(run.peakRSS.map { Double($0) }, peer.peakRSS.map { Double($0) }),
            ratio(run.addedRSS.map { Double($0) }, peer.addedRSS.map { Double($0) }),
            difference(run.roundTrip.percentile(50), peer.roundTrip.percentile(50)),
        ])
    }
}

/// `a ÷ b` as `1.23×` (two significant digits below 0.1: `0.0047×`), or `—` where either
/// is unknown.
private func ratio(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b, a.isFinite, b.isFinite, b > 0 else { return "—" }
    return String(format: a / b < 0.1 ? "%.2g×" : "%.2f×", a / b)
}

/// `a − b` as a signed duration, or `—` where either is unknown.
private func difference(_ a: Double, _ b: Double) -> String {
    guard a.isFinite, b.isFinite else { return "—" }
    return (a >= b ? "+" : "−") + duration(abs(a - b))
}

/// A table row: the label `width` wide (narrower than ``report(_:_:)``'s), then cells 12 wide.
private func row(_ label: String, _ cells: [String], width: Int = 16) {
    var line = "  " + ([label.padding(toLength: width, withPad: " ", startingAt: 0)]
        + cells.map { $0.padding(toLength: 12, withPad: " ", startingAt: 0) }).joined()
    while line.last == " " { line.removeLast() }
    print(line)
}
