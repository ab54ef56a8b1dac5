import ArgumentParser
import BenchmarkWorkloads
import AsyncHTTPClient
import CareCore
import CarePlan
import CarePlanStore
import CareWeb
import Foundation
import Logging
import NIOCore
import NIOPosix
import NodeIdentity
import ServiceLifecycle
import Synchronization
import SyncNode
import SyncProtocol

struct WebBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "The care app: a page's server time, and how soon an open page learns of a watch's completion.",
        discussion: """
            A fresh store with a plan of --activities activities, a primary serving it on 127.0.0.1 \
            over TLS with the care app beside it (HTTP on loopback), a signed-in client, and two \
            lightweight companions, all in this process. Prints the care card's time to answer \
            (p50/p99) against a static file's, the floor of a request; then, for completions sent one \
            at a time by one companion: the round trip, the delay until the other companion holds \
            the change (fan-out), until the open page's live stream says so, and until the page \
            fetched again shows it (what the page's script does).
            """)

    @Option(help: "Activities in the plan.")
    var activities = 50

    @Option(help: "Requests timed for each page.")
    var requests = 300

    @Option(help: "Completions whose delays are timed.")
    var completions = 100

    @Option(help: "Seconds to wait for a reply, a context or a live event before giving up.")
    var timeout = 30.0

    func validate() throws {
        guard activities > 0, requests > 0, completions > 0, timeout > 0 else { throw ValidationError("counts and durations must be positive") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await CarePlanStore(path: directory.appendingPathComponent("primary.sqlite").path)
        let zone = TimeZone(identifier: "Europe/Vienna")!
        let today = CalendarDay.containing(Date(), in: zone)
        try await CareCore(store: store).plan.load(Workloads.plan(activities: activities, start: today.adding(days: -7)), effectiveFrom: today.adding(days: -7), device: "bench")
        let keys = try await store.outcomes.events(on: today, kind: .intervention).map(\.key)
        let events = try await store.outcomes.events(on: today).count
        print("caresync-bench web: \(activities)-activity plan (\(events) events today); the primary, its care app and two companions in this process")

        let identity = try NodeIdentity.create(name: "Benchmark primary", now: Date())
        var primaryConfiguration = PrimaryConfiguration(identity: identity)
        primaryConfiguration.port = 0
        let node = PrimaryNode(store: store, configuration: primaryConfiguration)
        let primary = try await ServingPrimary.start(node)
        var webConfiguration = WebConfiguration()
        webConfiguration.port = 0
        var logger = Logger(label: "caresync-bench.web")
        logger.logLevel = .warning
        let web = try CareWebServer(store: store, changes: node.changes, configuration: webConfiguration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [web], logger: logger))
        let serving = Task { try await group.run() }
        var problem: (any Error)?
        do {
            let base = "http://127.0.0.1:\(try await web.boundAddress().port ?? 0)"
            let browser = try await WebClient.signedIn(base: base, store: store)
            try await pages(browser)
            let (watch, observer) = try await companions(store: store, primary: primary, fingerprint: identity.fingerprint)
            try await liveDelays(browser, watch: watch, observer: observer, keys: keys)
            await watch.close()
            await observer.close()
        } catch {
            problem = error
        }
        await group.triggerGracefulShutdown()
        _ = await serving.result
        try? await primary.stop()
        if let problem { throw problem }
    }

    /// The care card and the symptom tracker against the style sheet, each asked `requests` times.
    private func pages(_ browser: WebClient) async throws {
        for path in ["/", "/symptoms", WebAssetsPath.stylesheet] { _ = try await browser.get(path) }
        let floor = try await Samples.measure(requests) { _ in _ = try await browser.get(WebAssetsPath.stylesheet) }
        let card = try await Samples.measure(requests) { _ in _ = try await browser.get("/") }
        let symptoms = try await Samples.measure(requests) { _ in _ = try await browser.get("/symptoms") }
        report("static file (the floor of a request)", floor.summary)
        report("care card, \(activities) activities", card.summary)
        report("symptom tracker", symptoms.summary)
        report("care card ÷ floor, p50 / p99", String(format: "%.1f× / %.1f×", card.median / floor.median, card.percentile(99) / floor.percentile(99)))
    }

    /// Two companions paired as a watch and a widget would be, connected and current.
    private func companions(store: CarePlanStore, primary: ServingPrimary, fingerprint: String) async throws -> (FleetClient, FleetClient) {
        var clients: [FleetClient] = []
        for index in 0..<2 {
            let client = try await FleetClient.registered(index: index, in: store, name: "Web companion")
            try await client.connect(port: primary.port, primary: fingerprint, group: MultiThreadedEventLoopGroup.singleton)
            clients.append(client)
        }
        let revision = try await store.revision()
        guard await poll(within: .seconds(timeout), until: { clients.allSatisfy { $0.seen.revision >= revision } }) else {
            throw BenchmarkFailure("the companions did not receive their first context")
        }
        return (clients[0], clients[1])
    }

    /// Completions one at a time: their round trip, the fan-out to the other companion, the
    /// live event at the open page and the page fetched again.
    private func liveDelays(_ browser: WebClient, watch: FleetClient, observer: FleetClient, keys: [EventKey]) async throws {
        let live = try await browser.openLive()
        guard await poll(within: .seconds(timeout), until: { live.newest != nil }) else { throw BenchmarkFailure("the live stream said nothing") }
        var roundTrip = Samples(), fanOut = Samples(), event = Samples(), page = Samples()
        for index in 0..<(3 + completions) {
            let start = ContinuousClock.now
            guard case .accepted(let revision, _, _) = try await watch.complete(keys[index % keys.count]) else {
                throw BenchmarkFailure("a completion was not accepted: \(watch.seen.problem ?? "no reason given")")
            }
            let replied = ContinuousClock.now
            guard await poll(within: .seconds(timeout), until: { observer.seen.revision >= revision && (live.newest ?? -1) >= revision }),
                  let heard = live.arrival(of: revision)
            else { throw BenchmarkFailure("revision \(revision) did not reach the other companion and the page within \(duration(timeout))") }
            _ = try await browser.get("/")
            let shown = ContinuousClock.now
            guard index >= 3 else { continue }
            roundTrip.append(start.duration(to: replied).inSeconds)
            fanOut.append(start.duration(to: observer.seen.reachedAt).inSeconds)
            event.append(start.duration(to: heard).inSeconds)
            page.append(start.duration(to: shown).inSeconds)
        }
        live.close()
        report("completion round trip", roundTrip.summary)
        report("→ the other companion holds it (fan-out)", fanOut.summary)
        report("→ the open page's live event", event.summary)
        report("→ the page fetched again shows it", page.summary)
        report("live event ÷ fan-out, p50", String(format: "%.2f×", event.median / fanOut.median))
    }
}

/// The path of the app's style sheet: the cheapest request it answers.
private enum WebAssetsPath {
    static let stylesheet = "/assets/app.css"
}
