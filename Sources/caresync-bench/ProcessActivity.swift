import Foundation

/// What a process did over a window, read from /proc without waking it: context switches (its
/// wake-ups) and CPU time of every thread, and at the end its resident memory and threads.
struct ProcessActivity {
    var seconds: Double
    var contextSwitches: Int
    var cpuSeconds: Double
    var residentBytes: Int?
    var threads: Int

    var wakeUpsPerSecond: Double { Double(contextSwitches) / seconds }
    /// CPU as a share of one core, in percent.
    var cpuPercent: Double { cpuSeconds / seconds * 100 }

    /// Watches process `pid` for `window`. Every thread's switches are read twice a second, so
    /// that a thread born and gone within the window (Dispatch's workers live seconds) is
    /// counted; one that lives less than half a second between two looks is not.
    static func measure(_ pid: String, for window: Duration) async throws -> ProcessActivity {
        let started = ContinuousClock.now
        let first = threads(of: pid)
        var latest = first
        while started.duration(to: .now) < window {
            try await Task.sleep(for: min(.milliseconds(500), window - started.duration(to: .now)))
            for (thread, counts) in threads(of: pid) { latest[thread] = counts }
        }
        let elapsed = started.duration(to: .now).inSeconds
        let grown = latest.map { thread, counts in
            (switches: counts.switches - (first[thread]?.switches ?? 0), cpu: counts.cpuNanoseconds - (first[thread]?.cpuNanoseconds ?? 0))
        }
        return ProcessActivity(
            seconds: elapsed, contextSwitches: grown.reduce(0) { $0 + $1.switches },
            cpuSeconds: Double(grown.reduce(0) { $0 + $1.cpu }) / 1e9, residentBytes: residentMemory(of: pid),
            threads: threads(of: pid).count)
    }

    /// Each thread's voluntary and involuntary context switches so far, and its time on a CPU
    /// (the first figure of its schedstat, in nanoseconds: finer than the clock ticks of `stat`).
    private static func threads(of pid: String) -> [String: (switches: Int, cpuNanoseconds: Int)] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var counts: [String: (switches: Int, cpuNanoseconds: Int)] = [:]
        for thread in threads {
            let path = "/proc/\(pid)/task/\(thread)/"
            guard let status = try? String(contentsOfFile: path + "status", encoding: .utf8),
                  let schedstat = try? String(contentsOfFile: path + "schedstat", encoding: .utf8) else { continue }
            let switches = status.split(separator: "\n")
                .filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
                .compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
            counts[thread] = (switches, Int(schedstat.split(separator: " ").first ?? "") ?? 0)
        }
        return counts
    }
}
