import ArgumentParser
import CareBackup
import CareFHIR
import CarePlanStore
import CareWeb
import CommandOptions
import RelayProtocol
import Discovery
import CarePlan
import NodeIdentity
import Reminders
import Foundation
import LineOutput
import Logging
import MetricsEndpoint
import NIOCore
import ServiceLifecycle
import SyncNode
import Clocks

struct PrimaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "primary",
        abstract: "Serve the store to paired watch, widget and household companions over TLS 1.3.",
        discussion: """
            Prints one line when listening (JSON with --json) with the address, port and the \
            primary's fingerprint. Only devices paired with `caresync pair` may connect. SIGINT or \
            SIGTERM says Goodbye to every companion and stops.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var metrics: MetricsOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 7654

    @Option(help: "The name companions see.")
    var name = "CareSync primary"

    @Flag(inversion: .prefixedNo, help: "Advertise the primary on the local network with DNS-SD (_caresync._tcp).")
    var advertise = true

    @Flag(inversion: .prefixedNo, help: "Remind of events not yet done (watches, this log, notify-send).")
    var reminders = true

    @Flag(inversion: .prefixedNo, help: "Alert household devices that ask for it when a dose is missed (and give the all clear).")
    var alerts = true

    @Option(help: "Minutes a reminder missed while the primary was down may still fire at start-up.")
    var graceMinutes = 15

    @Option(help: ArgumentHelp("Run the primary's clock from this instant (for demos and tests).", valueName: "ISO 8601"))
    var clockStart: String?

    @Flag(help: "A test facility: move the primary's clock forward by N seconds for each line `advance N` on standard input.")
    var clockControl = false

    @Option(help: ArgumentHelp("Keep this FHIR server up to date with measurements and doses as they arrive.", valueName: "url"))
    var fhirServer: String?

    @Option(help: ArgumentHelp(
        "How often to look for new measurements and doses for --fhir-server and the connected health record.", valueName: "seconds"))
    var fhirInterval = 10.0

    @Option(help: ArgumentHelp("A bearer token for --fhir-server, read from this file (else from $CARESYNC_FHIR_TOKEN).", valueName: "file"))
    var fhirTokenFile: String?

    @Option(help: "Obtain access tokens for --fhir-server by SMART Backend Services as this client (with --fhir-smart-key).")
    var fhirSmartClientID: String?

    @Option(help: ArgumentHelp("The client's P-384 private key (PEM), as `caresync fhir smart-key` makes it.", valueName: "file"))
    var fhirSmartKey: String?

    @Option(help: "The SMART scopes to ask for.")
    var fhirSmartScope = SMARTBackendClient.defaultScope

    @Flag(help: "Serve the care app in a browser beside the primary; prints its address and a sign-in code.")
    var web = false

    @Option(help: "The care app's address: loopback unless given; beyond it, HTTPS with the primary's certificate.")
    var webHost = "127.0.0.1"

    @Option(help: "The care app's port; 0 picks a free one.")
    var webPort = 7655

    @Flag(help: "Serve the care app over HTTPS even on loopback (beyond loopback it always is).")
    var webTLS = false

    @Option(help: "The client id health record servers know CareSync by (SMART App Launch).")
    var healthRecordClientID = HealthRecordApp.defaultClientID

    @Option(help: ArgumentHelp(
        "The redirect URI registered with health record servers (default: the care app's address + /health-record/callback).",
        valueName: "uri"))
    var healthRecordRedirectURI: String?

    @Option(help: ArgumentHelp(
        "Connect health records as a confidential client that signs with this P-384 key (PEM, as `caresync fhir smart-key` makes it).",
        valueName: "file"))
    var healthRecordKey: String?

    @Option(help: ArgumentHelp("Back the store and identity up into this directory on a schedule (see --backup-every).", valueName: "dir"))
    var backupDir: String?

    @Option(help: ArgumentHelp("How often to back up into --backup-dir: 24h, 12h, 7d…", valueName: "duration"))
    var backupEvery = "24h"

    @Option(help: "How many backups to keep in --backup-dir (the oldest go).")
    var backupKeep = 7

    @Option(help: ArgumentHelp(
        "Seal the scheduled backups with the passphrase in this file (else $CARESYNC_BACKUP_PASSPHRASE).", valueName: "file"))
    var backupPassphraseFile: String?

    @Option(help: ArgumentHelp(
        "Wait for companions away from home on this relay (Syncthing's strelaysrv; repeatable, tried in order).",
        valueName: "relay://HOST:PORT/?id=RELAY_ID"))
    var relay: [String] = []

    @Flag(help: "Print events as JSON lines.")
    var json = false

    func validate() throws {
        for uri in relay {
            do { _ = try RelayAddress(uri) } catch { throw ValidationError("--relay: \(error)") }
        }
        guard backupDir == nil || (seconds(of: backupEvery).map { $0 >= 60 } ?? false) else {
            throw ValidationError("--backup-every must be a minute or more, such as 12h or 7d, not \"\(backupEvery)\"")
        }
        guard backupKeep >= 1 else { throw ValidationError("--backup-keep must be at least 1") }
        guard fhirInterval > 0 else { throw ValidationError("--fhir-interval must be more than 0") }
        try validateAuthorization(tokenFile: fhirTokenFile, smartClientID: fhirSmartClientID, smartKey: fhirSmartKey, prefix: "fhir-")
    }

    func run() async throws {
        let logger = logging.bootstrap("caresync.primary")
        let json = json
        let endpoint = metrics.endpoint(logger: logger) { port in
            json ? emitJSON(["event": "metrics", "port": .int(port)]) : emit("Metrics at http://127.0.0.1:\(port)/metrics")
        }
        try await reportingFailures {
            let store = try await options.open()
            let (info, _) = try await store.configuredPlan()
            // The primary's identity lives beside its store, made on first start.
            let identity = try NodeIdentity.loadOrCreate(in: identityDirectory(of: store), name: name)
            var configuration = PrimaryConfiguration(identity: identity)
            configuration.host = host
            configuration.port = port
            configuration.name = name
            configuration.logger = logger
            configuration.identityDirectory = identityDirectory(of: store)
            configuration.relays = try relay.map { try RelayAddress($0) }
            if !relay.isEmpty {
                // Kept beside the node's identity (and in its backups): companions find the
                // primary under the same relay id after a restart or a restore.
                configuration.relayIdentity = try NodeIdentity.loadOrCreate(
                    in: identityDirectory(of: store), name: PrimaryNode.relayIdentityName, file: PrimaryNode.relayIdentityFile)
            }
            // Scheduled backups' health, shown in the care app and sent to household devices.
            configuration.backupHealth = backupDir.map { _ in BackupHealth() }
            let shiftedClock = try shiftedClock()
            if let shiftedClock { configuration.clock = shiftedClock }
            var policy = ReminderPolicy()
            policy.gracePeriod = .seconds(graceMinutes * 60)
            let notices = PrimaryNotices(json: json, logger: logger)
            let node = PrimaryNode(
                store: store, configuration: configuration, reminders: reminders ? policy : nil, onReminder: notices.show,
                alerts: alerts, onAlert: notices.show)
            let announcement = Announcement(node: node, name: name, planID: info.planID, identity: identity, json: json, notices: notices)
            // Started in this order, stopped in the reverse: on SIGTERM or SIGINT the
            // advertisement goes first, then the reminders, then the primary says Goodbye.
            var services = (endpoint.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0)] } ?? [])
                + node.services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
                + [.init(service: announcement, successTerminationBehavior: .ignore)]
                + (relay.isEmpty ? [] : [.init(service: RelayNotices(node: node, json: json))])
            if advertise {
                let txt = PrimaryNode.txtRecord(nodeID: configuration.nodeID, planID: info.planID, fingerprint: identity.fingerprint)
                services.append(.init(service: Advertiser(
                    name: name, type: "_caresync._tcp", txt: txt, port: { try await node.boundAddress().port ?? 0 }, logger: logger
                ) { advertised in
                    json ? emitJSON(["event": "advertised", "name": .string(advertised), "type": "_caresync._tcp"])
                        : emit("Advertised as \"\(advertised)\" (_caresync._tcp)")
                }))
            }
            if clockControl, let shiftedClock {
                services.append(.init(service: ClockControl(clock: shiftedClock, json: json), successTerminationBehavior: .ignore))
            }
            // The patient's health record (SMART App Launch), connected in the care app: one
            // authorizer refreshes its tokens for the app and the upload alike.
            let vault = TokenVault(directory: identityDirectory(of: store))
            let healthRecord = HealthRecordAuthorizer(
                vault: vault, requests: OAuthRequests(logger: logger), clock: configuration.clock, logger: logger
            ) { reason in
                json ? emitJSON(["event": "health-record-sign-in-needed", "reason": .string(reason)])
                    : emit("The health record refused to refresh its access (\(reason)): sign in again in the care app")
            }
            if web {
                services += try webServices(store: store, node: node, identity: identity, healthRecord: healthRecord, logger: logger)
            }
            services.append(.init(service: FHIRUploadService.healthRecord(
                store: store, vault: vault, authorizer: healthRecord, interval: .seconds(fhirInterval), clock: configuration.clock,
                writes: node.storeWrites, json: json, logger: logger)))
            if let backupDir, let health = configuration.backupHealth {
                services.append(.init(service: try backupService(
                    store: store, directory: backupDir, clock: configuration.clock, health: health, logger: logger)))
            }
            if let fhirServer {
                let authorizer = try fhirAuthorizer(
                    server: fhirServer, tokenFile: fhirTokenFile, smartClientID: fhirSmartClientID, smartKey: fhirSmartKey,
                    smartScope: fhirSmartScope, logger: logger)
                services.append(.init(service: try await FHIRUploadService.server(
                    store: store, url: fhirServer, authorizer: authorizer, interval: .seconds(fhirInterval), clock: configuration.clock,
                    writes: node.storeWrites, json: json, logger: logger)))
            }
            var group = ServiceGroupConfiguration(services: services, logger: logger)
            group.gracefulShutdownSignals = [.sigterm, .sigint]
            try await ServiceGroup(configuration: group).run()
            json ? emitJSON(["event": "stopped"]) : emit("Stopped.")
        }
    }
}

/// The primary's first line, once it listens: its address, fingerprint and plan.
struct Announcement: Service {
    let node: PrimaryNode
    let name: String
    let planID: String
    let identity: NodeIdentity
    let json: Bool
    /// Told once the line is written: the reminders and alerts raised meanwhile follow it.
    let notices: PrimaryNotices

    func run() async throws {
        defer { notices.announced() }
        let address = try await node.boundAddress()
        if json {
            emitJSON([
                "event": "listening", "host": .string(address.ipAddress ?? ""), "port": .int(address.port ?? 0),
                "nodeID": .string(node.configuration.nodeID), "planID": .string(planID), "fingerprint": .string(identity.fingerprint),
            ])
        } else {
            emit("Listening on \(address.ipAddress ?? ""):\(address.port ?? 0) as \"\(name)\" for plan \(planID)")
            emit("Identity \(identity.displayFingerprint)")
        }
    }
}

extension PrimaryCommand {
    /// The clock `--clock-start` or `--clock-control` ask for (the latter alone starts it now).
    func shiftedClock() throws -> ShiftedClock? {
        guard let clockStart else { return clockControl ? ShiftedClock(start: Date()) : nil }
        guard let start = ISO8601.date(from: clockStart) else {
            throw UsageError(description: "--clock-start must be an ISO 8601 instant, not \"\(clockStart)\"")
        }
        return ShiftedClock(start: start)
    }

    /// Where the primary's identity (and its web certificate) live: beside its store.
    func identityDirectory(of store: CarePlanStore) -> String { StoreOptions.identityDirectory(ofStoreAt: store.path) }
}
