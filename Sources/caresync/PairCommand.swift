import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import LineOutput
import NodeIdentity

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Make a one-time code that pairs a watch, widget or household device with this primary.",
        discussion: """
            Give the code to the device's `pair CODE` (watch-sim pair, widget-sim pair, household-sim
            pair) while the primary runs. The code works once, expires, and pairing locks after
            \(CarePlanStore.pairingAttempts) wrong codes until a new one is made. It binds both
            devices' certificates, so a device in the middle cannot pair in the user's place.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("What the device is: watch, widget or household.", valueName: "role"))
    var role: String

    @Option(help: ArgumentHelp("How long the code stays valid: 90s, 5m, 1h.", valueName: "duration"))
    var expires = "5m"

    @Flag(help: "Let a household device record outcomes on the patient's behalf (watches and widgets always may).")
    var mayRecord = false

    @Flag(help: "Print the code as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            guard let role = DeviceRole(rawValue: role) else {
                throw UsageError(description: "--role must be watch, widget or household, not \"\(role)\"")
            }
            guard let lifetime = Self.seconds(expires), (10...86_400).contains(lifetime) else {
                throw UsageError(description: "--expires must be 10s to 24h, such as 90s, 5m or 1h, not \"\(expires)\"")
            }
            guard !mayRecord || role == .household else {
                throw UsageError(description: "--may-record is for household devices: a \(role.rawValue) always records")
            }
            let store = try await options.open()
            _ = try await store.configuredPlan()
            let code = PairingCode.random()
            let expiresAt = Date().addingTimeInterval(lifetime)
            try await store.openPairingCode(code.characters, role: role, mayRecord: mayRecord, expiresAt: expiresAt)
            if json {
                emit(#"{"code":"\#(code)","role":"\#(role.rawValue)","mayRecord":\#(mayRecord || role != .household),"expiresAt":"\#(ISO8601.string(from: expiresAt))"}"#)
            } else {
                emit("Pairing code for a \(role.rawValue): \(code)")
                emit("Valid until \(ISO8601.string(from: expiresAt)), once. On the device: \(role.rawValue)-sim pair \(code)")
            }
        }
    }

    /// `90s`, `5m`, `1h` or plain seconds.
    static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        if let unit = text.last.flatMap({ units[$0] }) { return Double(text.dropLast()).map { $0 * unit } }
        return Double(text)
    }
}
