import ArgumentParser
import Foundation
import SyncNode
import SyncProtocol

/// Options every simulator takes.
public struct CompanionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The primary's address.", valueName: "host:port"))
    public var connect: String

    @Option(help: ArgumentHelp("Where the simulator keeps its id, last context and outbox.", valueName: "dir"))
    public var stateDir: String

    @Option(help: "The name the primary sees.")
    public var name: String?

    @Flag(help: "Write every event as one JSON line.")
    public var json = false

    public init() {}

    public func validate() throws {
        guard PrimaryEndpoint(connect) != nil else { throw ValidationError("--connect must be HOST:PORT, not \"\(connect)\"") }
    }

    /// The node's configuration for `role`.
    public func configuration(role: Caresync_V1_Role, defaultName: String) -> CompanionConfiguration {
        CompanionConfiguration(role: role, name: name ?? defaultName, stateDirectory: stateDir, endpoint: PrimaryEndpoint(connect)!)
    }
}

/// Writes one line to standard output at once (simulators are read through pipes).
public func emit(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
