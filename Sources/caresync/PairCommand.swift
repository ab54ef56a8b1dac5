import CareCore
import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import LineOutput
import NodeIdentity

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Make a one-time code that pairs a watch, widget or household device, or signs a browser in.",
        discussion: """
            Give the code to the device's `pair CODE` (watch-sim pair, widget-sim pair, household-sim \
            pair) while the primary runs, or type it into the care app's sign-in page (--role browser; \
            with --household the browser only reads). The code works once, expires, and pairing locks after \
            \(DeviceAccess.pairingAttempts) wrong codes until a new one is made. It binds both \
            devices' certificates, so a device in the middle cannot pair in the user's place.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("What the device is: watch, widget, household, or browser for the care app.", valueName: "role"))
    var role: String

    @Flag(help: "With --role browser: a household member's browser, which reads but records nothing.")
    var household = false

    @Option(help: ArgumentHelp("How long the code stays valid: 90s, 5m, 1h.", valueName: "duration"))
    var expires = "5m"

    @Flag(help: "Let a household device record outcomes on the patient's behalf (watches and widgets always may).")
    var mayRecord = false

    @Flag(help: ArgumentHelp(
        "Let a household device keep a standby copy: the store and this primary's identity, encrypted, to restore from when this device is lost.",
        discussion: "Only for a device the patient trusts with the record: restored from its copy, a new primary is this one to every companion."))
    var standby = false

    @Flag(help: "Print the code as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            guard let lifetime = seconds(of: expires), (10...86_400).contains(lifetime) else {
                throw UsageError(description: "--expires must be 10s to 24h, such as 90s, 5m or 1h, not \"\(expires)\"")
            }
            if role == "browser" { return try await signInCode(lifetime: lifetime) }
            guard !household else { throw UsageError(description: "--household is for --role browser") }
            guard let role = DeviceRole(rawValue: role) else {
                throw UsageError(description: "--role must be watch, widget, household or browser, not \"\(role)\"")
            }
            guard !mayRecord || role == .household else {
                throw UsageError(description: "--may-record is for household devices: a \(role.rawValue) always records")
            }
            guard !standby || role == .household else {
                throw UsageError(description: "--standby is for household devices, not a \(role.rawValue)")
            }
            let store = try await options.open()
            _ = try await store.configuredPlan()
            let code = PairingCode.random()
            let expiresAt = Date().addingTimeInterval(lifetime)
            try await CareCore(store: store).access.openPairingCode(
                code.characters, role: role, mayRecord: mayRecord, standby: standby, expiresAt: expiresAt)
            if json {
                emitVerbatim(#"{"code":"\#(code)","role":"\#(role.rawValue)","mayRecord":\#(mayRecord || role != .household),"standby":\#(standby),"expiresAt":"\#(ISO8601.string(from: expiresAt))"}"#)
            } else {
                emit("Pairing code for a \(role.rawValue): \(code)")
                emit("Valid until \(ISO8601.string(from: expiresAt)), once. On the device: \(role.rawValue)-sim pair \(code)")
            }
        }
    }

    /// A code that signs a browser in to the care app (`caresync primary --web`).
    private func signInCode(lifetime: TimeInterval) async throws {
        guard !mayRecord else {
            throw UsageError(description: "--may-record is for household devices: a browser records unless --household")
        }
        guard !standby else { throw UsageError(description: "--standby is for household devices, not a browser") }
        let store = try await options.open()
        _ = try await store.configuredPlan()
        let code = PairingCode.random()
        let expiresAt = Date().addingTimeInterval(lifetime)
        let access: WebAccess = household ? .household : .caregiver
        try await CareCore(store: store).access.openSignInCode(code.characters, access: access, expiresAt: expiresAt)
        if json {
            emitVerbatim(#"{"code":"\#(code)","role":"browser","household":\#(household),"expiresAt":"\#(ISO8601.string(from: expiresAt))"}"#)
        } else {
            emit("Sign-in code for a \(household ? "household member's browser (read only)" : "browser"): \(code)")
            emit("Valid until \(ISO8601.string(from: expiresAt)), once. Type it into the care app's sign-in page.")
        }
    }
}
