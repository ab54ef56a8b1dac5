import Foundation
import Testing

/// Programs on a machine where D-Bus runs but no Avahi daemon does: a bus of the test's own
/// (`dbus-daemon`), which the programs take for the system bus, so the sandbox's daemon goes
/// on serving the tests beside this one.
struct NoAvahiTests {
    let scratch = Scratch()

    /// Without the daemon: one clear error that says what to do, and addresses still work.
    @Test func withoutAvahiTheErrorSaysWhatToDoAndAddressesStillWork() async throws {
        let bus = try await BusWithoutAvahi(in: scratch)
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, name: "Lonely \(UUID().uuidString.prefix(4))", environment: bus.environment)
        let complaint = try await #require(primary.process.waitForLine { $0.contains(" warning caresync.primary: not advertised") })
        #expect(complaint.contains("the mDNS daemon (Avahi) is not running") && complaint.contains("--connect HOST:PORT"))
        try await pairSimulator(
            "widget-sim", role: "widget", store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: scratch.path("widget"),
            environment: bus.environment)
        let widget = try await CareSyncCommand.run(
            executable: CareSyncCommand.binDirectory.appendingPathComponent("widget-sim"),
            ["--connect", primary.endpoint, "--state-dir", scratch.path("widget"), "--json"], environment: bus.environment)
        #expect(widget.status == 0, "the static address must keep working: \(widget.stdout)")

        // A watch paired at the address, then looking for its primary on the network.
        try await pairSimulator(
            store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: scratch.path("watch"), environment: bus.environment)
        let lost = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"), ["--state-dir", scratch.path("watch"), "--json"],
            environment: bus.environment)
        defer { lost.terminate(signal: SIGTERM) }
        let reason = try await #require(lost.waitForLine { $0.contains("\"disconnected\"") })
        #expect(reason.contains("the mDNS daemon (Avahi) is not running"))
        #expect(reason.contains("scripts/mdns-sandbox start") && reason.contains("--connect HOST:PORT"))
    }
}

/// A D-Bus daemon of the test's own, with no Avahi on it, until the test is done with it.
final class BusWithoutAvahi {
    private let daemon: RunningProcess
    /// What makes a program take this bus for the system bus.
    let environment: [String: String]

    init(in scratch: Scratch) async throws {
        daemon = try await RunningProcess(
            URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
            ["--session", "--nofork", "--print-address", "--address=unix:path=\(scratch.path("bus"))"])
        guard let address = await daemon.waitForLine(where: { $0.hasPrefix("unix:") }) else {
            throw ProcessFailed(description: "dbus-daemon did not start: \(daemon.output)")
        }
        environment = ["DBUS_SYSTEM_BUS_ADDRESS": address]
    }

    deinit { daemon.terminate(signal: SIGTERM) }
}
