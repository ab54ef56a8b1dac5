import Foundation
import Clocks

/// Durations of repeated runs, summarised as percentiles.
struct Samples {
    private(set) var seconds: [Double] = []

    /// Runs `body` `count` times and records each duration.
    static func measure(_ count: Int, _ body: (Int) async throws -> Void) async rethrows -> Samples {
        var samples = Samples()
        let clock = ContinuousClock()
        for index in 0..<count {
            let start = clock.now
            try await body(index)
            samples.seconds.append(start.duration(to: clock.now).inSeconds)
        }
        return samples
    }

    /// The value below which `p` percent of samples fall (nearest rank).
    func percentile(_ p: Double) -> Double {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// Adds one duration, in seconds.
    mutating func append(_ seconds: Double) {
        self.seconds.append(seconds)
    }

    var median: Double { percentile(50) }
    var total: Double { seconds.reduce(0, +) }

    /// `p50 … p99 … max …` in readable units.
    var summary: String {
        "p50 \(duration(percentile(50)))  p99 \(duration(percentile(99)))  max \(duration(percentile(100)))  (n=\(seconds.count))"
    }

    /// `p50 … p99 … p99.9 … max …`, for figures whose tail matters.
    var tailSummary: String {
        "p50 \(duration(percentile(50)))  p99 \(duration(percentile(99)))  p99.9 \(duration(percentile(99.9)))"
            + "  max \(duration(percentile(100)))  (n=\(seconds.count))"
    }
}

/// Formats seconds as ns, µs, ms or s.
func duration(_ seconds: Double) -> String {
    switch seconds {
    case ..<1e-6: String(format: "%.0f ns", seconds * 1e9)
    case ..<1e-3: String(format: "%.1f µs", seconds * 1e6)
    case ..<1: String(format: "%.2f ms", seconds * 1e3)
    default: String(format: "%.2f s", seconds)
    }
}

/// Formats a byte count as KiB or MiB.
func bytes(_ count: Int) -> String {
    count < 1 << 20 ? String(format: "%.1f KiB", Double(count) / 1024) : String(format: "%.1f MiB", Double(count) / 1_048_576)
}

/// A process's peak resident memory (this one's by default), from /proc (Linux).
func peakResidentMemory(of process: String = "self") -> Int? {
    memoryStatus("VmHWM:", of: process)
}

/// A process's resident memory now (this one's by default), from /proc (Linux).
func residentMemory(of process: String = "self") -> Int? {
    memoryStatus("VmRSS:", of: process)
}

/// Starts ``peakResidentMemory()`` afresh from the current resident memory (Linux 4.0 and
/// later); returns whether the kernel allowed it.
func resetPeakResidentMemory() -> Bool {
    (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
}

private func memoryStatus(_ field: String, of process: String = "self") -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
          let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kib * 1024
}

/// Prints a figure as `  label ........ value`.
func report(_ label: String, _ value: String) {
    print("  " + label.padding(toLength: 52, withPad: " ", startingAt: 0) + value)
}

/// The CPU time this process has used (user and system), for figures of CPU per operation.
struct ProcessCPU {
    var user: timeval
    var system: timeval

    static func now() -> ProcessCPU {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return ProcessCPU(user: usage.ru_utime, system: usage.ru_stime)
    }

    /// Seconds of CPU used since `earlier`.
    func seconds(since earlier: ProcessCPU) -> Double {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(user) + seconds(system) - seconds(earlier.user) - seconds(earlier.system)
    }
}
