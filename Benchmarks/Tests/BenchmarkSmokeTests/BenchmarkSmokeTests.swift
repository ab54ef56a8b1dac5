import Foundation
import Testing

/// The benchmark runs end to end on a tiny workload and prints every figure it promises. One
/// at a time: each loads the machine as a benchmark does.
@Suite(.serialized) struct BenchmarkSmokeTests {
    @Test func storeBenchmarkPrintsEveryFigure() async throws {
        let result = try await Bench.run([
            "store", "--years", "1", "--activities", "3", "--plan-activities", "8", "--repetitions", "5",
            "--single-writes", "5",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for figure in [
            "plan load, 8 activities", "events on a day (3 activities)", "completion status for 30 days",
            "outcome writes, one commit each", "outcome writes, 100 per commit",
            "day expansion, schedule began 10 years ago", "store events of a day, schedule 10 years old",
            "database size", "peak RSS",
        ] {
            #expect(result.lines.contains { $0.contains(figure) }, "missing \(figure)")
        }
        #expect(result.lines.contains { $0.contains("p50") && $0.contains("p99") })
    }

    @Test func syncBenchmarkPrintsEveryFigureForBothTransportsAndComparesThem() async throws {
        let result = try await Bench.run([
            "sync", "--companions", "1,3", "--completions", "15", "--seconds", "0.5", "--sustained-limit", "50",
            "--pairings-at-once", "2", "--peer", "none",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("TCP round trip + one commit (the floor)") })
        let floor = try #require(result.lines.first { $0.contains("floor ÷ one commit") })
        #expect(floor.contains("p50") && floor.contains("×"), "\(floor)")
        #expect(!result.lines.contains { $0.contains("Mosquitto") }, "--peer none runs no peer")
        let sections = ["1 companion, plaintext", "1 companion, TLS 1.3", "3 companions, plaintext", "3 companions, TLS 1.3"]
            .map { $0 + ", deltas" }
        #expect(result.lines.filter { line in sections.contains { line.hasPrefix($0 + " (") } }.count == 4,
                "one section per companion count and transport")
        for figure in [
            "pairing over TLS, 2 at a time: each", "pairing: every companion", "round trip: complete() until .accepted",
            "fan-out: until every other companion has it", "sustained completions, all companions at once",
            "peak RSS, primary and companions together",
        ] {
            #expect(result.lines.filter { $0.contains(figure) }.count == 4, "\(figure) in every section")
        }
        let batched = try #require(result.lines.first { $0.contains("SQLite batched insert, 100 rows a commit") })
        #expect(batched.hasSuffix("rows/s"), "\(batched)")
        for section in sections {
            // Against the floor, and its sustained completions against the batched inserts.
            let row = try #require(result.lines.first { $0.contains(section) && $0.contains("p50") && $0.contains("×") },
                                   "\(section) against the floor")
            let sustained = try #require(row.components(separatedBy: "sustained ").last)
            #expect(Self.ratio(sustained) != nil, "\(row)")
        }
        let comparison = try #require(result.lines.firstIndex { $0.hasPrefix("TLS ÷ plaintext") }, "no comparison table")
        for (offset, count) in [(3, "1 companion"), (4, "3 companions")] {
            let row = try #require(result.lines.dropFirst(comparison + offset).first)
            #expect(row.hasPrefix("  " + count), "row \(offset) is \(row)")
            let cells = Self.cells(row)
            // round trip p50 and p99, and sustained completions, in every row; fan-out with 3.
            var measured = [0, 1, 4]
            if count == "3 companions" { measured += [2, 3] }
            for index in measured {
                #expect(cells.count > index && Self.ratio(cells[index]) != nil, "cell \(index) of \(row)")
            }
            #expect(cells.last.map { ($0.hasPrefix("+") || $0.hasPrefix("−")) && $0.hasSuffix("s") } == true, "the difference in \(row)")
        }
    }

    /// One transport, both forms of context: a section each, the delta's size, and deltas
    /// compared with snapshots; with a pause before each timed completion, the floor paced
    /// alike in each section and in the closing table.
    @Test func syncBenchmarkMeasuresOneTransportWhenAskedAndComparesContextForms() async throws {
        let result = try await Bench.run([
            "sync", "--security", "tls", "--contexts", "both", "--companions", "2", "--completions", "5", "--seconds", "0.2",
            "--sustained-limit", "20", "--think-ms", "1",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("2 companions, TLS 1.3, snapshots (") })
        #expect(result.lines.filter { $0.contains("the floor, paced alike (1 ms before each)") && $0.contains("p50") }.count == 2)
        let against = try #require(result.lines.firstIndex { $0.hasPrefix("round trip ÷ the floor paced alike (÷ the floor back to back)") })
        for row in result.lines[(against + 1)...].prefix(2) {
            // p50 paced (back to back), p99 the same, then sustained.
            let ratios = row.components(separatedBy: " ").compactMap { Self.ratio($0.trimmingCharacters(in: CharacterSet(charactersIn: "()"))) }
            #expect(row.hasPrefix("  2 companions, TLS 1.3") && ratios.count == 5, "\(row)")
        }
        #expect(result.lines.contains { $0.hasPrefix("2 companions, TLS 1.3, deltas (") })
        #expect(!result.lines.contains { $0.hasPrefix("2 companions, plaintext") })
        #expect(result.lines.filter { $0.contains("round trip: complete() until .accepted") }.count == 2)
        let whole = try #require(result.lines.first { $0.contains("whole context frame") })
        let delta = try #require(result.lines.first { $0.contains("delta frame for one completion") })
        #expect(Self.kibibytes(delta) < Self.kibibytes(whole) / 10, "\(delta) against \(whole)")
        let comparison = try #require(result.lines.firstIndex { $0.hasPrefix("deltas ÷ snapshots") }, "no comparison table")
        let row = try #require(result.lines.dropFirst(comparison + 3).first)
        #expect(row.hasPrefix("  2 companions") && Self.cells(row).first.flatMap(Self.ratio) != nil, "\(row)")
        let refused = try await Bench.run(["sync", "--security", "none"])
        #expect(refused.status != 0)
        try Self.expectMosquittoCompared(result.lines, companions: 2)
    }

    /// A primary in its own process under lightweight companions: every figure, the
    /// primary's memory per connection, every completion accepted and nobody disconnected.
    @Test func fleetBenchmarkLoadsAPrimaryInItsOwnProcess() async throws {
        let result = try await Bench.run([
            "fleet", "--companions", "30", "--changes", "3", "--seconds", "0.5", "--sustained-limit", "300",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first?.hasPrefix("caresync-bench fleet: 30 companions in this process") == true, "\(result.lines)")
        for figure in [
            "connect: every companion holds its first context", "round trip: completion until its reply",
            "fan-out: until each companion has it", "fan-out: until every companion has it",
            "every companion current, after the last reply", "primary RSS: now, peak",
        ] {
            #expect(result.lines.contains { $0.contains(figure) }, "missing \(figure)")
        }
        // The primary's own timings, read from its metrics, after each phase.
        #expect(result.lines.filter { $0.contains("at the primary: arrival to reply, mean") && $0.contains("(n=") }.count == 2)
        #expect(result.lines.filter { $0.contains("at the primary: commit to frame written, mean") && $0.contains("(n=") }.count == 2)
        let perConnection = try #require(result.lines.first { $0.contains("primary RSS per connection") })
        #expect(Self.kibibytes(perConnection).isFinite, "\(perConnection)")
        #expect(result.lines.contains { $0.contains("fan-out: until each companion has it") && $0.contains("(n=90)") }, "30 × 3")
        let sustained = try #require(result.lines.first { $0.contains("sustained completions, every companion at once") })
        #expect(sustained.contains("/s") && sustained.contains("accepted"), "\(sustained)")
        #expect(!result.lines.contains { $0.contains("not accepted") || $0.contains("disconnected or refused") }, "\(result.lines)")
    }

    /// Measurements flat out and at 1 Hz, for one companion and for all, against the floor.
    @Test func measurementBenchmarkPrintsSamplesPerSecondAgainstTheFloor() async throws {
        let result = try await Bench.run(["measurements", "--watches", "2", "--samples", "1000", "--seconds", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        for label in ["1 companion", "2 companions"] {
            let rows = result.lines.filter { $0.hasPrefix("  \(label) ") && !$0.contains("÷") }
            #expect(rows.count == 2 && rows[0].hasSuffix("samples/s") && rows[1].contains("p50"), "\(rows)")
            let ratio = try #require(result.lines.first { $0.hasPrefix("  \(label) ÷ floor") })
            #expect(ratio.hasSuffix("×") && Self.ratio(String(ratio.split(separator: " ").last!)).map { $0 > 0 } == true, "\(ratio)")
        }
        #expect(result.lines.contains { $0.contains("floor: SQLite batched insert") && $0.hasSuffix("rows/s") })
        // 1,000 flat out twice and a sample a second for each run at 1 Hz (1 + 2), all sent on.
        let exported = try #require(result.lines.first { $0.hasPrefix("  resources (Observations, Patient, Devices)") })
        #expect(exported.contains("(2003 Observations)"), "\(exported)")
        let throughput = try #require(result.lines.first { $0.hasPrefix("  throughput ") && $0.hasSuffix("resources/s") })
        #expect(Double(throughput.split(separator: " ").dropLast().last!).map { $0 > 0 } == true, "\(throughput)")
        #expect(result.lines.contains { $0.hasPrefix("  throughput ÷ floor") && $0.hasSuffix("×") })
    }

    /// The peer's section (scripts/test installs Mosquitto) and CareSync against it, for
    /// each run of that companion count.
    static func expectMosquittoCompared(_ lines: [String], companions: Int) throws {
        #expect(lines.contains { $0.hasPrefix("Mosquitto, \(companions) clients, QoS 1 over plaintext TCP:") }, "\(lines)")
        // The fan-out's size is the run's whole context frame (a watch's holds tomorrow too from 20:00).
        for figure in ["round trip: 200 B published until PUBACK", "until every subscriber has it"] {
            #expect(lines.contains { $0.contains(figure) && $0.contains("p50") }, "\(figure)")
        }
        #expect(lines.contains { $0.contains("sustained: every client at once") && $0.contains("/s") })
        #expect(lines.contains { $0.contains("broker RSS: before → \(companions) connected") })
        let table = try #require(lines.firstIndex { $0.hasPrefix("CareSync ÷ Mosquitto") }, "no comparison with Mosquitto")
        let rows = lines.dropFirst(table + 3).prefix { $0.hasPrefix("  \(companions) companions") }
        #expect(rows.count == 2, "one row per run: \(lines.dropFirst(table))")
        for row in rows {
            let cells = Self.cells(row, label: 36)
            #expect(cells.count == 5 && cells.allSatisfy { Self.ratio($0) != nil }, "\(row)")
        }
    }

    /// The cells of a row of a comparison table: 12 characters each after the label
    /// (`label` wide, indented by two).
    static func cells(_ row: String, label: Int = 16) -> [String] {
        var rest = Substring(row.dropFirst(2 + label))
        var cells: [String] = []
        while !rest.isEmpty {
            cells.append(rest.prefix(12).trimmingCharacters(in: .whitespaces))
            rest = rest.dropFirst(12)
        }
        return cells
    }

    /// The size a report line ends with (`812 B`, `18.7 KiB`), in KiB; infinity if none.
    static func kibibytes(_ line: String) -> Double {
        let words = line.split(separator: " ")
        guard words.count >= 2, let value = Double(words[words.count - 2]) else { return .infinity }
        switch words.last {
        case "B": return value / 1024
        case "KiB": return value
        case "MiB": return value * 1024
        default: return .infinity
        }
    }

    /// `1.23×` as 1.23, if it is a positive ratio.
    static func ratio(_ cell: String) -> Double? {
        guard cell.hasSuffix("×"), let value = Double(cell.dropLast()), value > 0, value.isFinite else { return nil }
        return value
    }

    @Test func reminderBenchmarkPrintsItsFigures() async throws {
        let result = try await Bench.run(
            ["reminders", "--activities", "20", "--repetitions", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("plan the window (64 pending)") && $0.contains("p50") })
        #expect(result.lines.contains { $0.contains("pending after planning") && $0.hasSuffix("64") })
        #expect(result.lines.contains { $0.contains("one completion, then re-plan") })
    }

    @Test func idleBenchmarkPrintsItsFigures() async throws {
        let result = try await Bench.run(
            ["idle", "--seconds", "0.5", "--settle", "0", "--companions", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("started to its listening line") })
        for label in [
            "CareSync primary alone", "with 1 companion", "with 2 companions", "and the care app open", "Mosquitto broker alone",
            "with 2 clients",
        ] {
            let row = result.lines.first { $0.contains(label) }
            // wake-ups and preemptions a second, CPU, RSS, threads: each a figure.
            #expect(row.map { $0.contains("%") && $0.contains("MiB") } == true, "\(label): \(result.stdout)")
        }
        #expect(result.lines.contains { $0.contains("with 2 companions /") && $0.contains("RSS") && $0.contains("×") })
        // A command line's completion reached both companions, timed.
        #expect(result.lines.contains { $0.contains("`caresync complete` to all 2 companions") && $0.hasSuffix(" ms") })
        // What the primary's memory is made of, its own executable among it.
        #expect(result.lines.contains { $0.contains("the primary's resident memory") && $0.contains("executable") && $0.contains("written and its own") })
        // A watch's day: bytes with deltas and taking every context whole, and the keepalive's.
        for label in ["received with deltas", "received taking every context whole", "keepalive answers a day"] {
            #expect(result.lines.contains { $0.contains(label) && $0.contains("iB") }, "\(label): \(result.stdout)")
        }
    }

    /// Needs the mDNS sandbox (`scripts/mdns-sandbox start`; `scripts/bench --check` starts it).
    @Test func discoveryBenchmarkPrintsItsFigures() async throws {
        let result = try await Bench.run(["discovery", "--runs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("primary start → companion connected") && $0.contains("worst") })
        #expect(result.lines.contains { $0.contains("primary restart → companion reconnected") })
    }
}
