import FHIRTestServer
import Foundation
import Testing

/// SMART Backend Services from the command line: a key made by `caresync fhir smart-key`,
/// registered with `fhir-test-server` as a process, used by an upload and by the primary.
extension FHIRObservationsTests {
    /// `fhir-test-server` with a client registered from `jwks`, keeping what it holds in `state`.
    func smartServer(jwks: String, state: String) async throws -> (RunningProcess, String) {
        let server = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("fhir-test-server"),
            ["--smart-client-id", "caresync", "--smart-jwks", jwks, "--state", state, "--json"])
        let listening = try #require(await server.waitForLine { $0.contains("\"listening\"") }, "\(server.output)")
        return (server, try #require(WatchProcess.object(listening)?["url"] as? String))
    }

    /// `caresync fhir smart-key --out FILE`.
    func makeKey(_ file: String) async throws -> CareSyncCommand.Result {
        try await CareSyncCommand.run(executable: CareSyncCommand.executable, ["fhir", "smart-key", "--out", file])
    }

    @Test func aKeyMadeByTheCommandLineIsRegisteredAndAuthorizesUploadsAcrossAServerRestart() async throws {
        let key = scratch.path("smart-key.pem")
        let made = try await makeKey(key)
        #expect(made.status == 0, "\(made.stderr)")
        let keys = try #require(WatchProcess.object(made.stdout)?["keys"] as? [[String: Any]])
        #expect(keys.count == 1 && keys[0]["crv"] as? String == "P-384" && keys[0]["alg"] as? String == "ES384" && keys[0]["d"] == nil)
        #expect(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int == 0o600)
        let again = try await makeKey(key)
        #expect(again.stdout == made.stdout, "the key in the file is kept")
        let jwks = scratch.path("jwks.json")
        try made.stdout.write(toFile: jwks, atomically: true, encoding: .utf8)

        let state = scratch.path("server-state.json")
        var (server, url) = try await smartServer(jwks: jwks, state: state)
        let refused = try await caresync.run("fhir", "observations", "--server", url, "--since", "2026-11-01")
        #expect(refused.status == 1 && refused.stderr.contains("HTTP 401"), "\(refused.stderr)")
        let smart = ["--smart-client-id", "caresync", "--smart-key", key]
        let sent = try await caresync.run(["fhir", "observations", "--server", url, "--since", "2026-11-01", "--log-level", "debug"] + smart)
        #expect(sent.status == 0 && sent.lines.last?.hasPrefix("6 Observations, 6 created") == true, "\(sent.stdout)\(sent.stderr)")
        #expect(sent.stderr.contains("obtained a SMART access token"), "debug logging was on: \(sent.stderr)")
        let pem = try String(contentsOfFile: key, encoding: .utf8).split(separator: "\n").dropFirst().first.map(String.init) ?? "-"
        for secret in ["Bearer", "access_token", "client_assertion", pem] {
            #expect(!(sent.stdout + sent.stderr).contains(secret), "\(secret) shown")
        }
        #expect(server.output.contains { $0.contains("\"path\":\"/auth/token\"") && $0.contains("\"status\":200") })

        // Restarted on its state file, the server still holds them: nothing is created twice.
        await server.stop()
        (server, url) = try await smartServer(jwks: jwks, state: state)
        let resent = try await caresync.run(["fhir", "observations", "--server", url, "--since", "2026-11-01"] + smart)
        #expect(resent.lines.last?.hasPrefix("6 Observations, 0 created, 6 already there") == true, "\(resent.stdout)\(resent.stderr)")

        let stranger = try await caresync.run(
            ["fhir", "observations", "--server", url, "--since", "2026-11-01", "--smart-client-id", "stranger", "--smart-key", key])
        #expect(stranger.status == 1, "\(stranger.stdout)")
        #expect(stranger.stderr.contains("refused CareSync: invalid_client: the client assertion's iss and sub must be the client id"),
                "\(stranger.stderr)")
        let alone = try await caresync.run("fhir", "observations", "--server", url, "--smart-client-id", "caresync")
        #expect(alone.status != 0 && alone.stderr.contains("--smart-client-id and --smart-key go together"), "\(alone.stderr)")
        await server.stop()
    }

    /// The primary's continuous upload obtains a token, and a new one when the server has
    /// expired it, sending the refused transaction again.
    @Test func thePrimaryObtainsANewTokenWhenTheServerExpiresIt() async throws {
        let key = scratch.path("smart-key.pem")
        let made = try await makeKey(key)
        var options = FHIRTestServer.Options()
        options.smart = try SMARTClientRegistration(clientID: "caresync", jwks: Data(made.stdout.utf8))
        let server = try await FHIRTestServer(options: options)
        let primary = try await PrimaryProcess(store: caresync.store, extra: [
            "--fhir-server", server.url, "--fhir-interval", "0.2", "--fhir-smart-client-id", "caresync", "--fhir-smart-key", key,
        ])
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.terminate() }
        try await watch.waitFor("context")
        watch.send("measure heart-rate 71")
        try await waitFor("the first Observation on the server", seen: { "\(primary.process.output.suffix(5))" }) {
            server.resources("Observation").count == 1
        }
        #expect(server.tokensIssued == 1)

        server.expireTokens()
        watch.send("measure heart-rate 73")
        // The server keeps a resource before it records its request's status: wait for both.
        try await waitFor("the second Observation, after a new token, answered", seen: { "\(primary.process.output.suffix(5))" }) {
            server.resources("Observation").count == 2 && server.requests.last { $0.method == "POST" }?.status != nil
        }
        #expect(server.tokensIssued == 2)
        let posts = server.requests.filter { $0.method == "POST" }.map { request in
            "\(request.path.hasSuffix("/") ? String(request.path.dropLast()) : request.path) \(request.status.map(String.init) ?? "-")"
        }
        #expect(posts.suffix(3) == ["/fhir 401", "/auth/token 200", "/fhir 200"], "\(posts)")
    }
}
