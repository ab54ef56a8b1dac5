import ArgumentParser
import FHIRTestServer
import Foundation
import LineOutput
import Logging
import ServiceLifecycle

/// `fhir-test-server`: the FHIR test server as a process of its own, for the demo, the
/// benchmark and anyone trying an export without a real server. Loopback only.
@main
struct FHIRTestServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fhir-test-server",
        abstract: "A small FHIR R4 server on 127.0.0.1 that keeps what it is sent (transactions, conditional create and update, search).",
        discussion: """
            Prints its base URL, then a line per request (method, path, status, entries) until \
            SIGINT or SIGTERM. With --state, what it holds survives a restart.
            """)

    @Option(help: "The port to listen on (0: any free one).")
    var port = 0

    @Option(help: ArgumentHelp("Keep the resources in this file across restarts.", valueName: "file"))
    var state: String?

    @Option(help: ArgumentHelp("Answer only requests with this bearer token, read from the file.", valueName: "file"))
    var tokenFile: String?

    @Option(help: "Give SMART Backend Services access tokens to this client (with --smart-jwks).")
    var smartClientID: String?

    @Option(help: ArgumentHelp("The client's public keys, a JWK Set as `caresync fhir smart-key` prints it.", valueName: "file"))
    var smartJwks: String?

    @Option(help: "Let patients sign in to this app by SMART App Launch (with --launch-redirect-uri and --launch-user).")
    var launchClientID: String?

    @Option(help: ArgumentHelp("A redirect URI registered for the app (repeatable), as `caresync fhir status` prints it.", valueName: "uri"))
    var launchRedirectURI: [String] = []

    @Option(help: ArgumentHelp("A patient's login (repeatable), such as pat:secret:P1.", valueName: "user:password:patient"))
    var launchUser: [String] = []

    @Option(help: ArgumentHelp("The app is a confidential client with these public keys (a JWK Set).", valueName: "file"))
    var launchJwks: String?

    @Option(help: ArgumentHelp("Load these resources (a Bundle or a resource, JSON) at start (repeatable).", valueName: "file"))
    var load: [String] = []

    @Option(help: ArgumentHelp("How long an access token lasts.", valueName: "seconds"))
    var tokenLifetime = 300

    @Option(help: ArgumentHelp("Answer these POSTs (counting from 1) with 503, e.g. 2,3.", valueName: "n,…"))
    var fail: String?

    @Flag(help: "Print requests as JSON lines.")
    var json = false

    func validate() throws {
        guard (smartClientID == nil) == (smartJwks == nil) else { throw ValidationError("--smart-client-id and --smart-jwks go together") }
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be more than 0") }
        guard failing != nil else { throw ValidationError("--fail takes request numbers from 1, such as 2,3") }
        guard launchClientID != nil || (launchRedirectURI.isEmpty && launchUser.isEmpty && launchJwks == nil) else {
            throw ValidationError("--launch-redirect-uri, --launch-user and --launch-jwks need --launch-client-id")
        }
        guard launchClientID == nil || (!launchRedirectURI.isEmpty && users != nil && !launchUser.isEmpty) else {
            throw ValidationError("--launch-client-id needs a --launch-redirect-uri and a --launch-user user:password:patient")
        }
    }

    /// `--launch-user`s by name; `nil` if one is not user:password:patient.
    private var users: [String: (password: String, patient: String)]? {
        var users: [String: (password: String, patient: String)] = [:]
        for login in launchUser {
            let parts = login.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, !parts.contains(where: \.isEmpty) else { return nil }
            users[parts[0]] = (parts[1], parts[2])
        }
        return users
    }

    private var failing: Set<Int>? {
        guard let fail else { return [] }
        let numbers = fail.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.allSatisfy({ ($0 ?? 0) >= 1 }) else { return nil }
        return Set(numbers.compactMap { $0 })
    }

    func run() async throws {
        var options = FHIRTestServer.Options()
        options.stateFile = state
        options.fail = failing ?? []
        if let tokenFile {
            options.token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let smartClientID, let smartJwks {
            options.smart = try SMARTClientRegistration(
                clientID: smartClientID, jwks: Data(contentsOf: URL(fileURLWithPath: smartJwks)), tokenLifetime: tokenLifetime)
        }
        if let launchClientID, let users {
            var registration = SMARTLaunchRegistration(clientID: launchClientID, redirectURIs: launchRedirectURI, users: users)
            registration.tokenLifetime = tokenLifetime
            registration.clientKey = try launchJwks.map {
                try SMARTClientRegistration(clientID: launchClientID, jwks: Data(contentsOf: URL(fileURLWithPath: $0)))
            }
            options.launch = registration
        }
        let json = json
        options.answered = { request in
            json ? emitJSON(["method": .string(request.method), "path": .string(request.path),
                             "status": request.status.map { .int($0) } ?? .null, "entries": .int(request.entries)])
                : emit("\(request.method) \(request.path) \(request.status.map(String.init) ?? "-") \(request.entries) entries")
        }
        let server = try await FHIRTestServer(loading: load, options: options, port: port)
        json ? emitJSON(["event": "listening", "url": .string(server.url)]) : emit("FHIR test server at \(server.url)")
        let group = ServiceGroup(
            services: [Serving(server: server)], gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
            logger: .init(label: "fhir-test-server", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await group.run()
    }
}

/// The server until the process is told to stop.
private struct Serving: Service {
    let server: FHIRTestServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.stop()
    }
}
