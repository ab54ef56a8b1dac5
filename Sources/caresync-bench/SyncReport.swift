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

/// The closing tables: each run's round trips against the floor, then, for each companion
/// count measured over both transports, TLS against plaintext.
func reportClosing(_ runs: [RunFigures], floor: Samples) {
    print("round trip ÷ floor:")
    for run in runs {
        report("\(SyncBenchmark.label(run.companions)), \(run.security.label)", String(
            format: "p50 %.1f×  p99 %.1f×", run.roundTrip.percentile(50) / floor.percentile(50),
            run.roundTrip.percentile(99) / floor.percentile(99)))
    }
    let pairs = runs.filter { $0.security == .tls }.compactMap { tls in
        runs.first { $0.security == .unencrypted && $0.companions == tls.companions }.map { (tls: tls, plain: $0) }
    }
    guard !pairs.isEmpty else { return }
    print("TLS ÷ plaintext (above 1× TLS is slower or larger; for sustained completions, below 1× it serves fewer):")
    row("", ["round trip", "", "fan-out", "", "sustained", "peak RSS", "RSS added", "TLS adds"])
    row("", ["p50", "p99", "p50", "p99", "per second", "", "at peak", "to p50"])
    for (tls, plain) in pairs {
        row(SyncBenchmark.label(tls.companions), [
            ratio(tls.roundTrip.percentile(50), plain.roundTrip.percentile(50)),
            ratio(tls.roundTrip.percentile(99), plain.roundTrip.percentile(99)),
            ratio(tls.fanOut.percentile(50), plain.fanOut.percentile(50)),
            ratio(tls.fanOut.percentile(99), plain.fanOut.percentile(99)),
            ratio(tls.throughput, plain.throughput),
            ratio(tls.peakRSS.map { Double($0) }, plain.peakRSS.map { Double($0) }),
            ratio(tls.addedRSS.map { Double($0) }, plain.addedRSS.map { Double($0) }),
            difference(tls.roundTrip.percentile(50), plain.roundTrip.percentile(50)),
        ])
    }
}

/// `a ÷ b` as `1.23×`, or `—` where either is unknown.
private func ratio(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b, a.isFinite, b.isFinite, b > 0 else { return "—" }
    return String(format: "%.2f×", a / b)
}

/// `a − b` as a signed duration, or `—` where either is unknown.
private func difference(_ a: Double, _ b: Double) -> String {
    guard a.isFinite, b.isFinite else { return "—" }
    return (a >= b ? "+" : "−") + duration(abs(a - b))
}

/// A table row: the label as in ``report(_:_:)`` but narrower, then cells 12 wide.
private func row(_ label: String, _ cells: [String]) {
    var line = "  " + ([label.padding(toLength: 16, withPad: " ", startingAt: 0)]
        + cells.map { $0.padding(toLength: 12, withPad: " ", startingAt: 0) }).joined()
    while line.last == " " { line.removeLast() }
    print(line)
}
