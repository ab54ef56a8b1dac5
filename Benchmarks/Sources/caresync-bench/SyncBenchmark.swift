import ArgumentParser
import CarePlan
import CommandOptions
import Foundation
import Logging
import MetricsEndpoint

struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Completion round trips, fan-out, sustained completions and memory of a primary serving companions.",
        discussion: """
            For each companion count and each transport: a fresh store, a primary on 127.0.0.1 and \
            that many companions (alternately watches and widgets, each with its own state directory), \
            all in this process. The companions pair over TLS first, a few at a time; then the primary \
            and companions serve over the transport measured, the companions taking contexts as deltas \
            or whole. With both transports (or both forms), a closing table gives TLS against plaintext \
            (deltas against snapshots) for each companion count. The floor, a loopback TCP round \
            trip plus one SQLite commit, is measured in the same run, and so is SQLite's batched insert \
            (100 rows a commit), against which sustained completions are held. Then the peer, a Mosquitto \
            broker with native libmosquitto clients (Debian's mosquitto and libmosquitto1), runs the \
            same workload at each companion count, and a last table gives CareSync against it.
            """)

    @Option(help: ArgumentHelp("Companion counts, one run each.", valueName: "list"))
    var companions = "1,10,100"

    @Option(help: "Completions timed one at a time in each run, and floor round trips.")
    var completions = 300

    @Option(help: ArgumentHelp(
        "Milliseconds each timed completion waits for after the one before has reached every companion (0: none); "
            + "with a wait, a floor round trip paced alike follows each, and the closing table divides by it too.",
        valueName: "ms"))
    var thinkMs = 0

    @Option(help: "Seconds of concurrent completions from every companion in each run.")
    var seconds = 5.0

    @Option(help: "Most completions in the concurrent phase of each run.")
    var sustainedLimit = 100_000

    @Option(help: "Occurrences today of each of the plan's 20 activities.")
    var occurrences = 16

    @Option(help: "Seconds to wait for a connection, a reply or a context before giving up.")
    var timeout = 30.0

    @Option(help: "Seconds any timed loop may run at most.")
    var maxSeconds = 120.0

    @Option(help: "The transport to measure: tls, plaintext (no encryption, to see what TLS costs) or both.")
    var security = SecurityChoice.both

    @Option(help: "What companions receive: deltas (they offer context-delta), snapshots (every context whole) or both.")
    var contexts = ContextChoice.deltas

    /// One at a time by default: the primary checks a proof against each recent code, newest
    /// first, with a scrypt derivation each, so overlapping pairings cost it more derivations;
    /// on two cores 20 companions paired in 3.6 s one at a time, 3.7 s two and 4.4 s four at a time.
    @Option(help: "Companions pairing at the same time (each pairing costs a scrypt derivation on both sides).")
    var pairingsAtOnce = 1

    @Option(help: ArgumentHelp(
        "Where companions keep their state (default: a temporary directory); a RAM disk takes their writes off the primary's disk.",
        valueName: "dir"))
    var companionDirectory: String?

    @Option(help: "The peer measured on the same workload after CareSync's runs: mosquitto (a broker and native clients, if installed) or none.")
    var peer = PeerChoice.mosquitto

    @OptionGroup var metrics: MetricsOptions

    static let activities = 20
    /// Completions before the timed ones, so that caches and connections are warm.
    static let warmUp = 10

    private var counts: [Int] {
        companions.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func validate() throws {
        guard !counts.isEmpty, counts.count == companions.split(separator: ",").count, counts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--companions must be positive whole numbers separated by commas, not \"\(companions)\"")
        }
        guard completions > 0, thinkMs >= 0, seconds > 0, sustainedLimit > 0, pairingsAtOnce > 0, timeout > 0, maxSeconds > 0 else {
            throw ValidationError("counts and durations must be positive")
        }
        guard (1...Schedule.maximumOccurrencesPerDay).contains(occurrences) else {
            throw ValidationError("--occurrences must be from 1 to \(Schedule.maximumOccurrencesPerDay)")
        }
    }

    func run() async throws {
        let endpoint = metrics.endpoint(logger: Logger(label: "caresync-bench")) { print("metrics of every run at http://127.0.0.1:\($0)/metrics") }
        guard let endpoint else { return try await measureAll() }
        // The endpoint serves beside the runs and stops with them.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await endpoint.run() }
            defer { group.cancelAll() }
            try await measureAll()
        }
    }

    private func measureAll() async throws {
        let today = CalendarDay.containing(Date(), in: .gmt)
        print("caresync-bench sync: \(Self.activities)-activity plan, \(Self.activities * occurrences) events today;"
            + " \(completions) timed completions per run, then \(duration(seconds)) of concurrent ones")
        print("primary and companions share this process, its cores and its disk"
            + (companionDirectory.map { " (companion state in \($0))" } ?? ""))
        print("floor (loopback TCP over NIO; SQLite in WAL mode, synchronous = FULL; the four taking turns):")
        let floor = try await Floor.measure(count: completions, until: .now + .seconds(maxSeconds))
        report("one commit at NORMAL (GRDB's DatabasePool default)", floor.normalCommit.tailSummary)
        report("TCP round trip", floor.roundTrip.tailSummary)
        report("one commit", floor.commit.tailSummary)
        report("TCP round trip + one commit (the floor)", floor.both.tailSummary)
        report("SQLite batched insert, \(Floor.batchRows) rows a commit", String(format: "%.0f rows/s", floor.batchedInsertRate))
        report("floor ÷ one commit", String(
            format: "p50 %.2f×  p99 %.2f×", floor.both.percentile(50) / floor.commit.percentile(50),
            floor.both.percentile(99) / floor.commit.percentile(99)))
        var runs: [RunFigures] = []
        for count in counts {
            for transport in security.transports {
                for deltas in contexts.forms {
                    runs.append(try await measure(companions: count, security: transport, deltas: deltas, today: today))
                }
            }
        }
        let peers = try await measurePeers(counts: counts, contextBytes: runs.compactMap(\.contextBytes).first)
        reportClosing(runs, floor: floor, peers: peers)
    }

    /// The peer's runs, one per companion count; none, with a line saying why, where the
    /// peer is not installed.
    private func measurePeers(counts: [Int], contextBytes: Int?) async throws -> [PeerFigures] {
        guard peer == .mosquitto, let contextBytes else { return [] }
        var peers: [PeerFigures] = []
        for count in counts {
            do {
                peers.append(try await measureMosquitto(clients: count, contextBytes: contextBytes))
            } catch let unavailable as MosquittoUnavailable {
                print("Mosquitto: skipped, not installed here (\(unavailable))")
                return []
            }
        }
        return peers
    }

    /// The plan: `activities` interventions, each `occurrences` times a day from `start`, in UTC.
    static func plan(occurrences: Int, start: CalendarDay) throws -> Plan {
        let activities = try (0..<activities).map { n in
            try Activity(
                identifier: String(format: "s%02d", n), groupIdentifier: "g\(n % 4)", kind: .intervention,
                title: "Intervention \(n)", instructions: "With a glass of water.",
                schedule: .daily(occurrences: occurrences, start: start))
        }
        return try Plan(title: "Sync benchmark", timeZone: .gmt, activities: activities)
    }

    static func label(_ count: Int) -> String {
        count == 1 ? "1 companion" : "\(count) companions"
    }
}

/// A failure of the benchmark itself.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
