import CarePlan
import ArgumentParser
import NodeIdentity
import SyncNode

/// What a simulator is: the role it pairs and connects as.
public protocol SimulatorRole: Sendable {
    static var role: DeviceRole { get }
    /// The name the primary sees unless `--name` gives another.
    static var defaultName: String { get }
    /// Pairs a device of this role, as `configuration` describes it.
    static func pair(code: PairingCode, configuration: CompanionConfiguration) async throws -> PairingResult
}

extension SimulatorRole {
    /// A watch or widget follows one primary: its pairing replaces any earlier one.
    public static func pair(code: PairingCode, configuration: CompanionConfiguration) async throws -> PairingResult {
        try await CompanionNode(configuration: configuration).pair(code: code)
    }
}

/// `SIM pair CODE`: pairs the simulator with a primary using a code from `caresync pair`,
/// and pins the primary's fingerprint for every later connection.
public struct PairCommand<Role: SimulatorRole>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "pair",
            abstract: "Pair with a primary using the one-time code `caresync pair` printed.",
            discussion: "Exit status: 0 paired; 1 refused (wrong, expired or used code, locked) or not reachable.")
    }

    @Argument(help: ArgumentHelp("The code, e.g. ABCD-EFGH (case, dashes and spaces do not matter).", valueName: "code"))
    public var code: String

    @OptionGroup public var options: CompanionOptions

    public init() {}

    public func run() async throws {
        guard let code = PairingCode(code) else {
            throw ValidationError("\"\(self.code)\" is not a pairing code: eight letters and digits, such as ABCD-EFGH")
        }
        let output = EventOutput(json: options.json)
        let configuration = options.configuration(role: Role.role, defaultName: Role.defaultName) { output.showDiscovery($0) }
        let identity = try NodeIdentity.loadOrCreate(in: configuration.stateDirectory, name: configuration.name)
        output.showIdentity(fingerprint: identity.fingerprint, display: identity.displayFingerprint)
        do {
            output.showPaired(try await Role.pair(code: code, configuration: configuration))
        } catch {
            output.showError(error, otherwise: "PAIRING_FAILED")
            throw ExitCode.failure
        }
    }
}

extension EventOutput {
    /// A pairing that succeeded.
    public func showPaired(_ result: PairingResult) {
        write(["type": "paired", "primary": .string(result.primaryID), "name": .string(result.primaryName),
               "plan": .string(result.planID), "role": .string("\(result.role)"), "mayRecord": .bool(result.mayRecord)],
              text: "Paired with \(result.primaryName) (\(NodeIdentity.display(result.primaryID))) as \(result.role)"
                + (result.mayRecord ? "" : ", read-only"))
    }
}
