import AsyncHTTPClient
import FHIRTestServer
import Foundation
import NIOCore
import Testing

/// `caresync fhir connect` against a running primary with its care app: the address printed,
/// the patient signing in on "another device", the callback reaching the primary's web port,
/// the command ending connected, `fhir status` and `fhir disconnect`; and no code, token or
/// verifier in any output or log, at trace level.
struct HealthRecordConnectTests {
    let scratch = Scratch()

    @Test func theCommandLineConnectsThroughTheRunningPrimaryAndLeaksNoSecret() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store, extra: ["--web", "--web-port", "0", "--log-level", "trace"])
        let announced = try #require(await primary.process.waitForLine { $0.contains("\"web\"") }.flatMap(WatchProcess.object))
        let redirect = try #require(announced["healthRecordRedirectURI"] as? String)
        #expect(redirect.hasSuffix("/health-record/callback"))
        var options = FHIRTestServer.Options()
        options.launch = SMARTLaunchRegistration(clientID: "caresync", redirectURIs: [redirect], users: ["pat": (password: "secret", patient: "P1")])
        let orders = CareSyncCommand.repository.appendingPathComponent("Tests/Fixtures/fhir/health-record-orders.json").path
        let server = try await FHIRTestServer(loading: [orders], options: options)

        let status = try await caresync.run("fhir", "status", "--json")
        #expect(WatchProcess.object(status.stdout)?["redirectURI"] as? String == redirect)
        let connect = try await RunningProcess(
            CareSyncCommand.executable, ["fhir", "connect", "--server", server.base, "--json", "--log-level", "trace", "--store", caresync.store])
        let first = try #require(await connect.waitForLine { $0.contains("\"authorize\"") }.flatMap(WatchProcess.object))
        let back = try await PatientAtTheDoor.signIn(at: try #require(first["authorize"] as? String))
        // The patient's browser returns to the primary's care app, not signed in to it.
        let callback = try #require(back.string)
        let hop = try await Self.get(callback)
        #expect(hop.status == 200 && hop.refresh?.hasSuffix("&hop=1") == true)
        let finished = try await Self.get(callback + "&hop=1")
        #expect(finished.status == 200 && finished.body.contains("Health record connected"), "\(finished.body)")
        let ended = try #require(await connect.waitForLine { $0.contains("\"connected\"") }.flatMap(WatchProcess.object))
        #expect(ended["patient"] as? String == "P1")
        #expect(await connect.waitForExit() && connect.terminationStatus == 0)

        let connected = try #require(WatchProcess.object(try await caresync.run("fhir", "status", "--json").stdout))
        #expect(connected["server"] as? String == server.base && connected["patient"] as? String == "P1")
        #expect((connected["scopes"] as? String)?.contains("launch/patient") == true)
        let meds = try await caresync.run("meds")
        #expect(meds.stdout.contains("Amoxicillin 250 mg capsule"), "the patient's orders imported: \(meds.stdout)")

        // The sign-in is kept 0600 and reads as no text.
        let sealed = caresync.store + ".identity/health-record.sealed"
        let mode = try FileManager.default.attributesOfItem(atPath: sealed)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let disconnect = try await caresync.run("fhir", "disconnect")
        #expect(disconnect.status == 0 && disconnect.stdout.contains("revoked"), "\(disconnect.stdout)")
        #expect(!FileManager.default.fileExists(atPath: sealed))

        await primary.stop()
        let secrets = server.launchSecrets
        #expect(secrets.count >= 4, "a code, a verifier, an access and a refresh token")
        // Every output and log; not the hop page, which sends the browser on to the address it
        // came with (the code is in its address bar already).
        let outputs = [primary.process.output.joined(separator: "\n"), connect.output.joined(separator: "\n"), status.stdout, status.stderr,
                       meds.stdout, disconnect.stdout, disconnect.stderr, finished.body]
        for secret in secrets {
            let leaks = outputs.flatMap { $0.split(separator: "\n") }.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "a secret in an output or log: \(leaks.prefix(3))")
        }
        let sealedBytes = FileManager.default.contents(atPath: caresync.store + ".identity/health-record.pending") ?? Data()
        #expect(!secrets.contains { String(decoding: sealedBytes, as: UTF8.self).contains($0) })
        await server.stop()
    }

    /// A GET without cookies, redirects not followed: status, body and `Refresh`.
    static func get(_ url: String) async throws -> (status: Int, body: String, refresh: String?) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { _ = client.shutdown() }
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body), response.headers.first(name: "Refresh"))
    }
}
