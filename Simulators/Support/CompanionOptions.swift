import CarePlan
import ArgumentParser
import Clocks
import CommandOptions
import Foundation
import LineOutput
import Logging
import SyncNode

/// Options every simulator takes.
public struct CompanionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The primary's address; without it the primary is found on the network.", valueName: "host:port"))
    public var connect: String?

    @Option(help: ArgumentHelp("The primary to follow, by name or id, when several are on the network.", valueName: "name|id"))
    public var primary: String?

    @Option(help: ArgumentHelp("Where the simulator keeps its id, last context and outbox.", valueName: "dir"))
    public var stateDir: String

    @Option(help: "The name the primary sees.")
    public var name: String?

    @Flag(help: "Reach the primary only through the relays it named when pairing or since, never directly (as a device away from home).")
    public var relayOnly = false

    @Option(help: ArgumentHelp(
        "A test facility: run this device's clock from this instant; each line `advance SECONDS` on stdin moves it on.",
        valueName: "ISO 8601"))
    public var clockStart: String?

    @Flag(help: "Write every event as one JSON line.")
    public var json = false

    @OptionGroup public var logging: LoggingOptions

    public init() {}

    public func validate() throws {
        if let connect, PrimaryEndpoint(connect) == nil {
            throw ValidationError("--connect must be HOST:PORT, not \"\(connect)\"")
        }
        if let clockStart, ISO8601.date(from: clockStart) == nil {
            throw ValidationError("--clock-start must be an ISO 8601 instant, not \"\(clockStart)\"")
        }
    }

    /// Where the primary is, for messages.
    public var primaryDescription: String {
        if relayOnly { return "through its relays" }
        return connect ?? primary.map { "\"\($0)\" on the network" } ?? "on the network"
    }

    /// The node's configuration for `role`: a fixed address, or discovery on the network
    /// whose choice `report` hears about. Starts the process's log (``LoggingOptions``): call once.
    public func configuration(
        role: DeviceRole, defaultName: String, report: @escaping @Sendable (String) -> Void
    ) -> CompanionConfiguration {
        let logger = logging.bootstrap("caresync.\(role)")
        var configuration: CompanionConfiguration
        if let connect, let endpoint = PrimaryEndpoint(connect) {
            configuration = CompanionConfiguration(role: role, name: name ?? defaultName, stateDirectory: stateDir, endpoint: endpoint)
        } else {
            let discovery = PrimaryDiscovery(choice: primary, report: report, logger: logger)
            configuration = CompanionConfiguration(role: role, name: name ?? defaultName, stateDirectory: stateDir) { known in
                try await discovery.locate(knownPrimaryID: known)
            }
        }
        configuration.logger = logger
        configuration.relayOnly = relayOnly
        if let start = clockStart.flatMap(ISO8601.date(from:)) { configuration.clock = ShiftedClock(start: start) }
        return configuration
    }
}
