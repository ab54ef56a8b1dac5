import CareCore
import CareFHIR
import CarePlan
import CarePlanStore
import CareWeb
import Foundation
import LineOutput
import Logging
import NodeIdentity
import ServiceLifecycle
import SyncNode

extension PrimaryCommand {
    /// The care app and the line that says where it is, with a sign-in code.
    func webServices(
        store: CarePlanStore, node: PrimaryNode, identity: NodeIdentity, healthRecord: HealthRecordAuthorizer, logger: Logger
    ) throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var configuration = WebConfiguration()
        configuration.host = webHost
        configuration.port = webPort
        configuration.clock = node.configuration.clock
        configuration.backupHealth = node.configuration.backupHealth
        // This machine's name and its mDNS name: what a browser on the network calls it by.
        let machine = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        configuration.serverNames = machine.isEmpty ? [] : [machine, machine + ".local"]
        // Beyond loopback the app speaks HTTPS with the primary's key, under a certificate that
        // names the hosts it is served under (kept beside the identity).
        if webTLS || !configuration.isLoopback {
            configuration.identity = identity
            configuration.serverCertificate = try ServerCertificate.loadOrCreate(
                for: identity, hosts: Array(configuration.servedHosts()), in: identityDirectory(of: store))
        }
        let vault = TokenVault(directory: identityDirectory(of: store))
        configuration.healthRecord = HealthRecordSettings(vault: vault, requests: OAuthRequests(logger: logger), authorizer: healthRecord)
        let server = try CareWebServer(store: store, changes: node.changes, configuration: configuration, logger: logger)
        let announcement = WebAnnouncement(
            server: server, store: store, fingerprint: configuration.serverCertificate?.fingerprint, json: json,
            healthRecord: HealthRecordApp(clientID: healthRecordClientID, redirectURI: healthRecordRedirectURI ?? "", keyFile: try healthRecordKeyFile()),
            vault: vault)
        return [.init(service: server), .init(service: announcement, successTerminationBehavior: .ignore)]
    }
}

extension PrimaryCommand {
    /// `--health-record-key` as an absolute path (the command line reads it from elsewhere),
    /// once it is known to hold a key that signs.
    func healthRecordKeyFile() throws -> String? {
        guard let healthRecordKey else { return nil }
        _ = try SMARTSigningKey(file: healthRecordKey)
        return URL(fileURLWithPath: healthRecordKey).standardizedFileURL.path
    }
}

/// Once the care app listens: its address, a sign-in code for the person at the primary
/// (a caregiver's, valid ten minutes, once) and, under TLS, the certificate's fingerprint to
/// compare with the browser's warning page.
struct WebAnnouncement: Service {
    static let codeLifetime: TimeInterval = 600

    let server: CareWebServer
    let store: CarePlanStore
    /// The served certificate's fingerprint, under TLS.
    let fingerprint: String?
    let json: Bool
    /// The health record registration to announce; without a redirect URI, the care app's
    /// address and the callback's path.
    let healthRecord: HealthRecordApp
    /// Where it is announced.
    let vault: TokenVault

    func run() async throws {
        let address = try await server.boundAddress()
        let host = address.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "127.0.0.1"
        let url = "\(fingerprint == nil ? "http" : "https")://\(host):\(address.port ?? 0)/"
        var app = healthRecord
        if app.redirectURI.isEmpty { app.redirectURI = url + String(HealthRecordApp.callbackPath.dropFirst()) }
        try vault.announce(app)
        let code = PairingCode.random()
        let expiresAt = Date().addingTimeInterval(Self.codeLifetime)
        try await CareCore(store: store).access.openSignInCode(code.characters, access: .caregiver, expiresAt: expiresAt)
        if json {
            var line: [String: JSONValue] = [
                "event": "web", "url": .string(url), "signInCode": .string(code.description),
                "expiresAt": .string(ISO8601.string(from: expiresAt)),
            ]
            if let fingerprint { line["fingerprint"] = .string(Self.display(fingerprint)) }
            line["healthRecordRedirectURI"] = .string(app.redirectURI)
            emitJSON(line)
        } else {
            emit("Care app at \(url): sign in with \(code) (valid for 10 minutes, once)")
            if let fingerprint { emit("Its certificate's SHA-256 fingerprint: \(Self.display(fingerprint))") }
        }
    }

    /// A fingerprint as browsers show a certificate's: pairs of hex digits, with colons.
    static func display(_ fingerprint: String) -> String {
        let hex = Array(fingerprint.uppercased())
        return stride(from: 0, to: hex.count, by: 2).map { String(hex[$0..<min($0 + 2, hex.count)]) }.joined(separator: ":")
    }
}
