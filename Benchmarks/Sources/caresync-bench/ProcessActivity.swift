import Foundation

/// What a process did over a window, read from /proc without waking it: context switches and
/// CPU time of every thread, and at the end its resident memory and threads. A wake-up is a
/// voluntary switch (a thread went to sleep, so something had woken it); an involuntary one is
/// a running thread preempted, counted apart.
struct ProcessActivity {
    var seconds: Double
    var wakeUps: Int
    var preemptions: Int
    var cpuSeconds: Double
    var residentBytes: Int?
    var threads: Int

    var wakeUpsPerSecond: Double { Double(wakeUps) / seconds }
    var preemptionsPerSecond: Double { Double(preemptions) / seconds }
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
            let before = first[thread] ?? Counts(voluntary: 0, involuntary: 0, cpuNanoseconds: 0)
            return Counts(
                voluntary: counts.voluntary - before.voluntary, involuntary: counts.involuntary - before.involuntary,
                cpuNanoseconds: counts.cpuNanoseconds - before.cpuNanoseconds)
        }
        return ProcessActivity(
            seconds: elapsed, wakeUps: grown.reduce(0) { $0 + $1.voluntary }, preemptions: grown.reduce(0) { $0 + $1.involuntary },
            cpuSeconds: Double(grown.reduce(0) { $0 + $1.cpuNanoseconds }) / 1e9, residentBytes: residentMemory(of: pid),
            threads: threads(of: pid).count)
    }

    private struct Counts {
        var voluntary: Int
        var involuntary: Int
        var cpuNanoseconds: Int
    }

    /// Each thread's voluntary and involuntary context switches so far, and its time on a CPU
    /// (the first figure of its schedstat, in nanoseconds: finer than the clock ticks of `stat`).
    private static func threads(of pid: String) -> [String: Counts] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var counts: [String: Counts] = [:]
        for thread in threads {
            let path = "/proc/\(pid)/task/\(thread)/"
            guard let status = try? String(contentsOfFile: path + "status", encoding: .utf8),
                  let schedstat = try? String(contentsOfFile: path + "schedstat", encoding: .utf8) else { continue }
            func field(_ name: String) -> Int {
                status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0
            }
            counts[thread] = Counts(
                voluntary: field("voluntary_ctxt_switches"), involuntary: field("nonvoluntary_ctxt_switches"),
                cpuNanoseconds: Int(schedstat.split(separator: " ").first ?? "") ?? 0)
        }
        return counts
    }
}
