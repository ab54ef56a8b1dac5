import CareCore
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
        static let configuration = CommandConfiguration(
            abstract: "Paired devices with role and when last seen, then the care app's browser sessions.")

        @OptionGroup var options: StoreOptions

        @Flag(help: "Print one JSON object per device and line.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let devices = try await store.devices.all()
                let sessions = try await store.webSessions.all()
                if !json && devices.isEmpty && sessions.isEmpty { emit("No paired devices: pair one with `caresync pair --role ROLE`.") }
                for device in devices { try json ? emitJSON(device) : emit(Self.line(device)) }
                for session in sessions { json ? emitJSON(Self.fields(session)) : emit(Self.line(session)) }
            }
        }

        static func line(_ session: WebSession) -> String {
            let access = session.access == .household ? " read-only" : ""
            let status = session.revokedAt.map { "signed out \(ISO8601.string(from: $0))" }
                ?? "until \(ISO8601.string(from: session.expiresAt)), last seen \(session.lastSeen.map(ISO8601.string(from:)) ?? "never")"
            return "\(session.shortID)  browser\(access)  \"\(session.name)\"  \(status)"
        }

        static func fields(_ session: WebSession) -> [String: JSONValue] {
            [
                "id": .string(session.shortID), "role": "browser", "household": .bool(session.access == .household),
                "name": .string(session.name), "signedInAt": .string(ISO8601.string(from: session.signedInAt)),
                "expiresAt": .string(ISO8601.string(from: session.expiresAt)), "lastSeen": .orNull(session.lastSeen.map(ISO8601.string(from:))),
                "revokedAt": .orNull(session.revokedAt.map(ISO8601.string(from:))),
            ]
        }

        static func line(_ device: PairedDevice) -> String {
            let access = (device.role == .household && !device.mayRecord ? " read-only" : "") + (device.standby ? " standby" : "")
            let status = device.revokedAt.map { "revoked \(ISO8601.string(from: $0))" }
                ?? device.lastSeen.map { "last seen \(ISO8601.string(from: $0))" } ?? "never seen"
            return "\(NodeIdentity.display(device.id))  \(device.role.rawValue)\(access)  \"\(device.name)\"  \(status)"
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refuse a device from now on (a running primary closes its connection at once), or end a browser's session.")

        @Argument(help: ArgumentHelp("The device's fingerprint or the session's id, or enough of its beginning to be unique.", valueName: "id"))
        var id: String

        @OptionGroup var options: StoreOptions

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let device: PairedDevice
                do {
                    device = try await store.devices.device(named: id)
                } catch CarePlanStoreError.unknownDevice(let named) {
                    // Not a device: a browser session, or neither (then the device's error).
                    let session: WebSession?
                    do {
                        session = try await CareCore(store: store).access.revokeWebSession(id)
                    } catch CarePlanStoreError.unknownWebSession {
                        throw CarePlanStoreError.unknownDevice(named)
                    }
                    emit(session.map { "Signed out the browser \"\($0.name)\" (\($0.shortID))." } ?? "That browser session had already ended.")
                    return
                }
                let change = try await CareCore(store: store).access.revokeDevice(device.id, device: options.device)
                emit(change == nil ? "\(device.name) was already revoked." : "Revoked \(device.name) (\(NodeIdentity.display(device.id))).")
            }
        }
    }
}
