import ArgumentParser
import CareCore
import CarePlan
import CarePlanStore
import Foundation
import NIOPosix
import Clocks
import Waiting

struct IdleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "What an idle primary costs: wake-ups, CPU, memory and threads, alone and with companions, beside Mosquitto.",
        discussion: """
            `caresync primary --web` (built beside this benchmark, reminders and alerts on) in a process \
            of its own on a fresh store, measured over a window with nothing happening: alone, with \
            one companion connected and with --companions (TLS connections from this process that \
            ping as a watch does and hold their contexts), then with the care app open as well (a \
            signed-in client holding the page's live stream, which is all an open page's script \
            keeps up: it has no timer of its own); then a Mosquitto broker the same way, \
            with as many idle clients (MQTT keepalive 60 s). Wake-ups are the process's voluntary \
            context switches, every thread's, read from /proc without waking it (a thread that \
            sleeps was woken before); preemptions of running threads are counted apart. Also the time from \
            starting `caresync primary` to its listening line. Build with -c release for real \
            figures; a window under a minute is for trying it out.
            """)

    @Option(help: "Seconds each window lasts.")
    var seconds = 60.0

    @Option(help: "Companions (and MQTT clients) in the busiest window.")
    var companions = 10

    @Option(help: "The care plan of the watch's day (a plan document; the repository's example by default).")
    var plan = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Examples/zombiecare-plan.json")
        .standardized.path

    @Option(help: "Seconds to wait for the primary or a context before giving up.")
    var timeout = 60.0

    /// What a step sets off must be over before its window: the primary writes when devices
    /// were last seen 10 s after they connect (`PrimaryConfiguration.lastSeenInterval`), and
    /// Dispatch's idle worker threads end about 5 s after their last work.
    @Option(help: "Seconds to wait before each window, for what the step before set off to end.")
    var settle = 20.0

    func validate() throws {
        guard seconds > 0, companions > 1, timeout > 0, settle >= 0 else {
            throw ValidationError("--seconds and --timeout must be positive, --settle not negative, --companions at least 2")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-idle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("caresync-bench idle: windows of \(duration(seconds)), nothing happening in them")
        let today = CalendarDay.containing(Date(), in: .gmt)
        let store = try await CarePlanStore(path: directory.appendingPathComponent("primary.sqlite").path)
        try await CareCore(store: store).plan.load(SyncBenchmark.plan(occurrences: 4, start: today), effectiveFrom: today, device: "bench")
        var clients: [FleetClient] = []
        for index in 0..<companions { clients.append(try await FleetClient.registered(index: index, in: store)) }

        let launched = ContinuousClock.now
        let primary = try await PrimaryProcess.start(
            store: store.path, log: directory.appendingPathComponent("primary.log"), timeout: .seconds(timeout), reminders: true,
            web: true)
        let startup = launched.duration(to: .now).inSeconds
        let measured = try await primary.serving(clients, within: .seconds(timeout)) {
            let rows = try await measure(primary, clients, store: store)
            return (rows: rows, memory: MemoryMap.read(primary.pid), reach: try await reached(clients, byCompletionIn: store))
        }
        let (rows, memory, reach) = measured
        report("`caresync primary` started to its listening line", duration(startup))
        report("`caresync complete` to all \(companions) companions", duration(reach.total.inSeconds))
        report("  the command alone, start to exit", duration(reach.command.inSeconds))

        var peer: [(label: String, activity: ProcessActivity)] = []
        var peerMemory: MemoryMap?
        do {
            (peer, peerMemory) = try await measureMosquitto()
        } catch let unavailable as MosquittoUnavailable {
            print("Mosquitto not measured: \(unavailable)")
        }
        print(Self.table(rows + peer))
        for (index, row) in rows.enumerated() where index < peer.count {
            print("  " + "\(row.label) / \(peer[index].label)".padding(toLength: 52, withPad: " ", startingAt: 0)
                + Self.ratios(row.activity, peer[index].activity))
        }
        if let memory { print("  the primary's resident memory with \(companions) companions: \(memory.summary)") }
        if let peerMemory { print("  Mosquitto's with \(companions) clients: \(peerMemory.summary)") }

        let day = try await DayTraffic.measure(plan: plan, in: directory, timeout: .seconds(timeout))
        print("A watch's day on \(plan): \(day.events) events recorded once on another device (each assessment answered), \(day.contexts) contexts")
        report("received with deltas", bytes(day.deltaBytes))
        report("received taking every context whole", bytes(day.wholeBytes) + String(format: " (%.1f× the deltas)", Double(day.wholeBytes) / Double(max(1, day.deltaBytes))))
        report("keepalive answers a day", "\(bytes(day.keepaliveBytesPerDay)) (\(day.pongBytes) B every \(duration(day.pingInterval.inSeconds)))")
    }

    /// The primary alone, with one companion, with all of them, and with the care app open too.
    private func measure(
        _ primary: PrimaryProcess, _ clients: [FleetClient], store: CarePlanStore
    ) async throws -> [(label: String, activity: ProcessActivity)] {
        let window = Duration.seconds(seconds), revision = try await store.revision()
        try await Task.sleep(for: .seconds(settle))
        var rows = [(label: "CareSync primary alone", activity: try await ProcessActivity.measure(primary.pid, for: window))]
        for (count, label) in [(1, "  with 1 companion"), (clients.count, "  with \(clients.count) companions")] {
            for client in clients.prefix(count) where client.seen.revision < revision {
                try await client.connect(port: primary.port, primary: primary.fingerprint, group: MultiThreadedEventLoopGroup.singleton)
            }
            guard await poll(within: .seconds(timeout), until: { clients.prefix(count).allSatisfy { $0.seen.revision >= revision } }) else {
                throw BenchmarkFailure("a companion had no context within \(duration(timeout))")
            }
            try await Task.sleep(for: .seconds(settle))
            rows.append((label: label, activity: try await ProcessActivity.measure(primary.pid, for: window)))
        }
        guard let webURL = primary.webURL else { throw BenchmarkFailure("the primary announced no care app") }
        let page = try await WebClient.signedIn(base: String(webURL.dropLast()), store: store)
        let live = try await page.openLive()
        defer { live.close() }
        guard await poll(within: .seconds(timeout), until: { live.newest != nil }) else {
            throw BenchmarkFailure("the care app's live stream said nothing within \(duration(timeout))")
        }
        try await Task.sleep(for: .seconds(settle))
        rows.append((label: "  and the care app open", activity: try await ProcessActivity.measure(primary.pid, for: window)))
        return rows
    }

    /// Records an event with `caresync complete` in a process of its own, then waits until every
    /// companion holds a context with it: the time from that process's start, and its own.
    private func reached(_ clients: [FleetClient], byCompletionIn store: CarePlanStore) async throws -> (total: Duration, command: Duration) {
        let process = Process()
        process.executableURL = PrimaryProcess.executable
        process.arguments = ["complete", "s00", "--occurrence", "0", "--store", store.path, "--device", "bench-cli"]
        process.standardOutput = FileHandle.nullDevice
        let started = ContinuousClock.now
        try process.run()
        await blocking { process.waitUntilExit() }
        let command = started.duration(to: .now)
        guard process.terminationStatus == 0 else { throw BenchmarkFailure("caresync complete exited with \(process.terminationStatus)") }
        let revision = try await store.revision()
        guard await poll(within: .seconds(timeout), until: { clients.allSatisfy { $0.seen.revision >= revision } }) else {
            throw BenchmarkFailure("a companion had no context with the command line's completion within \(duration(timeout))")
        }
        return (started.duration(to: clients.map(\.seen.reachedAt).max() ?? started), command)
    }

    /// A Mosquitto broker alone, with one idle client, and with as many as companions; what its
    /// memory is made of at the end.
    private func measureMosquitto() async throws -> ([(String, ProcessActivity)], MemoryMap?) {
        let window = Duration.seconds(seconds), limit = Duration.seconds(timeout)
        let broker = try await MosquittoBroker.start(timeout: limit)
        defer { broker.stop() }
        try await Task.sleep(for: .seconds(settle))
        var rows = [("Mosquitto broker alone", try await ProcessActivity.measure(broker.pid, for: window))]
        var clients: [MosquittoClient] = []
        defer { for client in clients { client.close() } }
        for (count, label) in [(1, "  with 1 client"), (companions, "  with \(companions) clients")] {
            while clients.count < count {
                let client = try MosquittoClient(id: "idle-\(clients.count)", port: broker.port, timeout: limit)
                try client.subscribe("caresync/context")
                clients.append(client)
            }
            try await Task.sleep(for: .seconds(settle))
            rows.append((label, try await ProcessActivity.measure(broker.pid, for: window)))
        }
        return (rows, MemoryMap.read(broker.pid))
    }

    /// The rows as a table: wake-ups and preemptions a second, CPU, resident memory, threads.
    static func table(_ rows: [(label: String, activity: ProcessActivity)]) -> String {
        let header = "  " + "".padding(toLength: 30, withPad: " ", startingAt: 0)
            + ["wake-ups/s", "preempted/s", "CPU", "RSS", "threads"].map { $0.padding(toLength: 12, withPad: " ", startingAt: 0) }.joined()
        let lines = rows.map { row in
            "  " + row.label.padding(toLength: 30, withPad: " ", startingAt: 0) + [
                String(format: "%.2f", row.activity.wakeUpsPerSecond), String(format: "%.2f", row.activity.preemptionsPerSecond),
                String(format: "%.3f %%", row.activity.cpuPercent),
                row.activity.residentBytes.map(bytes) ?? "?", "\(row.activity.threads)",
            ].map { $0.padding(toLength: 12, withPad: " ", startingAt: 0) }.joined()
        }
        return ([header] + lines).joined(separator: "\n")
    }

    /// CareSync's figures as multiples of the peer's.
    static func ratios(_ ours: ProcessActivity, _ theirs: ProcessActivity) -> String {
        func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(format: "%.2f×", a / b) : "—" }
        let memory = ours.residentBytes.flatMap { a in theirs.residentBytes.map { b in ratio(Double(a), Double(b)) } } ?? "—"
        return "wake-ups \(ratio(ours.wakeUpsPerSecond, theirs.wakeUpsPerSecond)), CPU \(ratio(ours.cpuSeconds, theirs.cpuSeconds)), RSS \(memory)"
    }
}
