import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import LineOutput
import NodeIdentity

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "The devices paired with this primary.",
        subcommands: [List.self, Revoke.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Paired devices with role and when last seen.")

        @OptionGroup var options: StoreOptions

        @Flag(help: "Print one JSON object per device and line.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let devices = try await options.open().devices()
                if !json && devices.isEmpty { emit("No paired devices: pair one with `caresync pair --role ROLE`.") }
                for device in devices { try json ? emitJSON(device) : emit(Self.line(device)) }
            }
        }

        static func line(_ device: PairedDevice) -> String {
            let access = device.role == .household && !device.mayRecord ? " read-only" : ""
            let status = device.revokedAt.map { "revoked \(ISO8601.string(from: $0))" }
                ?? device.lastSeen.map { "last seen \(ISO8601.string(from: $0))" } ?? "never seen"
            return "\(NodeIdentity.display(device.id))  \(device.role.rawValue)\(access)  \"\(device.name)\"  \(status)"
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refuse a device from now on; a running primary closes its connection at once.")

        @Argument(help: ArgumentHelp("The device's fingerprint, or enough of its beginning to be unique.", valueName: "id"))
        var id: String

        @OptionGroup var options: StoreOptions

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let device = try await store.device(named: id)
                let change = try await store.revokeDevice(device.id, device: options.device)
                emit(change == nil ? "\(device.name) was already revoked." : "Revoked \(device.name) (\(NodeIdentity.display(device.id))).")
            }
        }
    }
}
