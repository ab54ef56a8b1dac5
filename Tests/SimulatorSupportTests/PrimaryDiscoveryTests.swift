import Discovery
import Logging
import SimulatorSupport
import Synchronization
import Testing
import TestSupport

/// How a companion chooses its primary among the services it hears, on a scripted network
/// and a clock the test moves: which services a listening window keeps, and for how long
/// one that does not resolve is waited for. (The real daemon: `DiscoveryScenarioTests`.)
struct PrimaryDiscoveryTests {
    let clock = ManualClock()
    let network = ScriptedNetwork()

    func discovery(choosing choice: String? = nil) -> PrimaryDiscovery {
        PrimaryDiscovery(choice: choice, report: { _ in }, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), directory: network, clock: clock)
    }

    /// The window of 1.5 s bounds hearing, not resolving: a primary heard in time is listed
    /// though it resolves only after the window closed. Services of other roles are not.
    @Test func aPrimaryHeardInTimeIsListedThoughItResolvesLate() async throws {
        let locating = Task { [discovery = discovery()] in try await discovery.locate(knownPrimaryID: nil) }
        await clock.sleeping()  // the window is open
        network.hear("kitchen")
        network.hear("hall")
        network.hear("den", role: "household")
        try await network.resolving(["kitchen", "hall", "den"])
        network.answer("kitchen", port: 1)
        network.answer("den", port: 3)
        clock.advance(by: 1.5)
        network.answer("hall", port: 2)
        let failure = try await #require(throws: DiscoveryFailure.self) { try await locating.value }
        #expect(failure.description.contains("several primaries"))
        #expect(failure.description.contains("kitchen") && failure.description.contains("hall"))
        #expect(!failure.description.contains("den"))
    }

    /// A service that never resolves is given up ``PrimaryDiscovery/resolving`` (10 s) after it
    /// was heard, and the primary that did resolve is chosen.
    @Test func aServiceThatNeverResolvesIsGivenUp() async throws {
        let locating = Task { [discovery = discovery()] in try await discovery.locate(knownPrimaryID: nil) }
        await clock.sleeping()
        network.hear("mute")
        await clock.sleeping(2)  // the window, and the bound on resolving "mute" (until 10 s)
        clock.advance(by: 1)
        network.hear("hall")  // its bound ends at 11 s, after the test's last move
        try await network.resolving(["mute", "hall"])
        network.answer("hall", port: 2)
        clock.advance(by: 0.5)  // the window closes; "mute" is still waited for
        clock.advance(by: 8.5)
        #expect(try await locating.value.port == 2)
    }

    /// Nothing heard within the window: no primary, and the reason says how to name one.
    @Test func nothingHeardIsNoPrimary() async throws {
        let locating = Task { [discovery = discovery()] in try await discovery.locate(knownPrimaryID: nil) }
        await clock.sleeping()
        clock.advance(by: 1.5)
        let failure = try await #require(throws: DiscoveryFailure.self) { try await locating.value }
        #expect(failure.description.contains("--connect HOST:PORT"))
    }

    /// A primary looked for by name is taken as soon as it resolves, without waiting for the
    /// window or for the others.
    @Test func aNamedPrimaryIsTakenAsSoonAsItResolves() async throws {
        let locating = Task { [discovery = discovery(choosing: "kitchen")] in try await discovery.locate(knownPrimaryID: nil) }
        await clock.sleeping()
        network.hear("hall")
        network.hear("kitchen")
        try await network.resolving(["hall", "kitchen"])
        network.answer("kitchen", port: 3)
        #expect(try await locating.value.port == 3)
        #expect(clock.now == ManualClock().now)  // no time passed
    }
}

/// Services heard and resolved when the test says so.
final class ScriptedNetwork: ServiceDirectory {
    private let heard = AsyncStream<BrowseEvent>.makeStream()
    private let answers = Mutex<[String: AsyncStream<ResolvedService>.Continuation]>([:])
    private let roles = Mutex<[String: String]>([:])

    func browse(type: String) throws(DiscoveryError) -> AsyncStream<BrowseEvent> { heard.stream }

    /// Waits for the test's answer; ends (as timed out) when cancelled.
    func resolve(_ service: DiscoveredService) async throws(DiscoveryError) -> ResolvedService {
        let (answer, continuation) = AsyncStream<ResolvedService>.makeStream()
        answers.withLock { $0[service.name] = continuation }
        for await resolved in answer { return resolved }
        throw .timedOut("resolving \(service.name)")
    }

    /// A service named `name` appears on the network.
    func hear(_ name: String, role: String = "primary") {
        roles.withLock { $0[name] = role }
        heard.continuation.yield(.found(DiscoveredService(name: name, type: PrimaryDiscovery.serviceType)))
    }

    /// Waits until each of `names` is being resolved.
    func resolving(_ names: Set<String>) async throws {
        try await waitFor("resolutions of \(names.sorted())", seen: { "\(self.answers.withLock { $0.keys.sorted() })" }) {
            answers.withLock { names.isSubset(of: $0.keys) }
        }
    }

    /// `name` resolves to loopback and `port`.
    func answer(_ name: String, port: Int) {
        let role = roles.withLock { $0[name] ?? "primary" }
        let service = DiscoveredService(name: name, type: PrimaryDiscovery.serviceType)
        _ = answers.withLock { $0[name] }?.yield(
            ResolvedService(service: service, host: "\(name).local.", address: "127.0.0.1", port: port, txt: ["role": role, "node": name]))
    }
}
