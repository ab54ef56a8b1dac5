@testable import CareFHIR
import FHIRTestServer
import Foundation
import TestSupport
import Testing

/// A confidential client (`private_key_jwt`): the code's exchange, the refresh and the
/// revocation each signed with the client's key; without the key, no access.
struct ConfidentialLaunchTests {
    let launchTests = HealthRecordLaunchTests()
    let scratch = Scratch()
    var directory: String { scratch.path("confidential") }

    /// A key in a file, and a server that registered its public half for "caresync-app".
    func keyAndServer() async throws -> (keyFile: String, server: FHIRTestServer) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = SMARTSigningKey.generate()
        let keyFile = directory + "/client.pem"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let server = try await launchTests.server(clientKey: try SMARTClientRegistration(clientID: "caresync-app", jwks: key.jwks))
        return (keyFile, server)
    }

    @Test func theExchangeTheRefreshAndTheRevocationAreSigned() async throws {
        let (keyFile, server) = try await keyAndServer()
        let launch = try await launchTests.begin(server, keyFile: keyFile)
        let code = try #require(try await PatientAtTheDoor.signIn(at: launch.authorizeURL).query("code"))
        let connection = try await launch.finish(code: code, now: launchTests.clock.now, requests: launchTests.requests)
        #expect(connection.patient == "P1" && connection.keyFile == keyFile)

        let vault = TokenVault(directory: directory + "/vault")
        try vault.keep(connection)
        server.expireTokens()
        let authorizer = HealthRecordAuthorizer(vault: vault, requests: launchTests.requests, clock: launchTests.clock, logger: .init(label: "test"))
        _ = try await FHIRClient(base: server.base, authorizer: authorizer).get(server.base + "/Patient?identifier=x|y")
        #expect(server.requests.map { "\($0.method) \($0.status ?? 0)" }.suffix(3) == ["GET 401", "POST 200", "GET 200"], "refreshed, signed")
        #expect(try await vault.disconnect(requests: launchTests.requests, now: launchTests.clock.now) == true)
        #expect(server.launchRefusals.isEmpty, "\(server.launchRefusals)")
        await server.stop()
    }

    @Test func withoutTheKeyTheCodeBuysNothing() async throws {
        let (_, server) = try await keyAndServer()
        let launch = try await launchTests.begin(server)
        let code = try #require(try await PatientAtTheDoor.signIn(at: launch.authorizeURL).query("code"))
        await #expect {
            try await launch.finish(code: code, now: launchTests.clock.now, requests: launchTests.requests)
        } throws: { error in
            "\(error)".contains("this client is confidential")
        }
        await server.stop()
    }

    @Test func anUnreadableKeyIsNamedWithoutAskingTheServer() async throws {
        let (_, server) = try await keyAndServer()
        let launch = try await launchTests.begin(server, keyFile: directory + "/missing.pem")
        let asked = server.requests.count
        await #expect(throws: HealthRecordError.self) {
            try await launch.finish(code: "any", now: launchTests.clock.now, requests: launchTests.requests)
        }
        #expect(server.requests.count == asked)
        await server.stop()
    }
}
