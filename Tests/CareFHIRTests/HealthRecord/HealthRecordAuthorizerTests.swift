@testable import CareFHIR
import FHIRTestServer
import Foundation
import Logging
import Synchronization
import Testing
import TestSupport

/// A connected health record in use: the tokens kept sealed, refreshed silently before they
/// expire, a refused refresh turned into "sign in again", and a disconnection that revokes.
struct HealthRecordAuthorizerTests {
    let launchTests = HealthRecordLaunchTests()
    var clock: ManualClock { launchTests.clock }
    let scratch = Scratch()
    var directory: String { scratch.path("vault") }

    /// A server, and a vault holding a connection to it as patient P1.
    func connected() async throws -> (FHIRTestServer, TokenVault, HealthRecordConnection) {
        let server = try await launchTests.server()
        let launch = try await launchTests.begin(server)
        let code = try #require(try await PatientAtTheDoor.signIn(at: launch.authorizeURL).query("code"))
        let connection = try await launch.finish(code: code, now: clock.now, requests: launchTests.requests)
        let vault = TokenVault(directory: directory)
        try vault.keep(connection)
        return (server, vault, connection)
    }

    func authorizer(_ vault: TokenVault, told: Told = Told()) -> HealthRecordAuthorizer {
        HealthRecordAuthorizer(
            vault: vault, requests: launchTests.requests, clock: clock, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            signInNeeded: { reason in told.reasons.withLock { $0.append(reason) } })
    }

    @Test func theTokensAreKeptSealedWhereOnlyTheOwnerCanRead() async throws {
        let (server, vault, connection) = try await connected()
        for path in [vault.keyPath, vault.connectionPath] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(path)")
        }
        let sealed = try #require(FileManager.default.contents(atPath: vault.connectionPath))
        let text = String(decoding: sealed, as: UTF8.self)
        let refreshToken = try #require(connection.refreshToken)
        #expect(!text.contains(connection.accessToken) && !text.contains(refreshToken))
        // (Names, not the two letters of "P1", which random bytes hold now and then.)
        #expect(!text.contains("\"patient\"") && !text.contains("accessToken"), "the sealed file reads as no text")
        #expect(try vault.connection()?.accessToken == connection.accessToken)
        // A key of another vault does not open it.
        let other = TokenVault(directory: directory + "-other")
        try other.keep(connection)
        try FileManager.default.removeItem(atPath: other.connectionPath)
        try FileManager.default.copyItem(atPath: vault.connectionPath, toPath: other.connectionPath)
        #expect(throws: HealthRecordError.self) { try other.connection() }
        await server.stop()
    }

    @Test func anExpiringTokenIsRefreshedSilentlyAndKept() async throws {
        let (server, vault, connection) = try await connected()
        let authorizer = authorizer(vault)
        #expect(try await authorizer.authorization(renewing: false) == "Bearer \(connection.accessToken)")
        try await clock.sleep(.seconds(241))  // within a minute of the 300 s expiry
        let renewed = try #require(try await authorizer.authorization(renewing: false))
        #expect(renewed != "Bearer \(connection.accessToken)")
        #expect(try vault.connection().map { "Bearer \($0.accessToken)" } == renewed)
        // The server takes the new token.
        let client = FHIRClient(base: server.base, authorizer: authorizer)
        _ = try await client.get(server.base + "/Patient?identifier=x|y")
        #expect(server.requests.last?.status == 200)
        await server.stop()
    }

    @Test func requestsThatFindTheTokenDueTogetherRefreshItOnce() async throws {
        let (server, vault, connection) = try await connected()
        let authorizer = authorizer(vault)
        try await clock.sleep(.seconds(300))
        let issued = server.tokensIssued
        async let first = authorizer.authorization(renewing: false)
        async let second = authorizer.authorization(renewing: false)
        let (a, b) = try await (first, second)
        #expect(a == b && a != "Bearer \(connection.accessToken)")
        #expect(server.tokensIssued == issued + 1, "one refresh")
        #expect(server.launchRefusals.isEmpty)
        await server.stop()
    }

    @Test func aTokenTheServerRefusesIsRefreshedAndTheRequestSentAgain() async throws {
        let (server, vault, _) = try await connected()
        server.expireTokens()
        let client = FHIRClient(base: server.base, authorizer: authorizer(vault))
        _ = try await client.get(server.base + "/Patient?identifier=x|y")
        #expect(server.requests.map { "\($0.method) \($0.status ?? 0)" }.suffix(3) == ["GET 401", "POST 200", "GET 200"])
        await server.stop()
    }

    @Test func aRefusedRefreshAsksThePersonToSignInAgain() async throws {
        let (server, vault, _) = try await connected()
        let told = Told()
        let authorizer = authorizer(vault, told: told)
        server.revokeRefreshTokens()
        try await clock.sleep(.seconds(300))
        await #expect {
            try await authorizer.authorization(renewing: false)
        } throws: { error in
            "\(error)".contains("sign in to the health record again") && "\(error)".contains("the refresh token is unknown or revoked")
        }
        #expect(told.reasons.withLock { $0 } == ["invalid_grant: the refresh token is unknown or revoked"])
        #expect(try vault.connection()?.signInNeeded == "invalid_grant: the refresh token is unknown or revoked")
        // Every request after fails at once, without asking the server again.
        let asked = server.requests.count
        await #expect(throws: FHIRExportError.self) { try await authorizer.authorization(renewing: false) }
        #expect(server.requests.count == asked)
        await server.stop()
    }

    @Test func disconnectingRevokesTheTokensAndForgetsThem() async throws {
        let (server, vault, connection) = try await connected()
        #expect(try await vault.disconnect(requests: launchTests.requests) == true)
        #expect(try vault.connection() == nil)
        let client = FHIRClient(base: server.base, authorizer: BearerToken(connection.accessToken))
        await #expect(throws: FHIRError.self) { try await client.get(server.base + "/Patient?identifier=x|y") }
        await #expect(throws: HealthRecordError.notConnected) { try await vault.disconnect(requests: launchTests.requests) }
        await server.stop()
    }
}

/// What the authorizer told of refused refreshes.
final class Told: Sendable {
    let reasons = Mutex<[String]>([])
}

/// The launches waiting for their callback: each state taken once, only while fresh.
struct PendingLaunchTests {
    let launchTests = HealthRecordLaunchTests()
    let scratch = Scratch()
    let pending: PendingLaunches

    init() {
        pending = PendingLaunches(vault: TokenVault(directory: scratch.path("pending")))
    }

    @Test func aStateIsTakenOnceAndOnlyWhileFresh() async throws {
        let server = try await launchTests.server()
        let now = launchTests.clock.now
        let fresh = try await launchTests.begin(server)
        let stale = try await launchTests.begin(server)
        try pending.add(fresh, now: now)
        try pending.add(stale, now: now)
        #expect(try pending.take(state: "not-a-state", session: nil, now: now) == nil)
        #expect(try pending.take(state: fresh.state, session: nil, now: now)?.state == fresh.state)
        #expect(try pending.take(state: fresh.state, session: nil, now: now) == nil, "a state is single use")
        #expect(try pending.outcome(state: fresh.state) == nil, "taken, not yet ended")
        try pending.end(state: fresh.state, .connected(patient: "P1"))
        #expect(try pending.outcome(state: fresh.state) == .connected(patient: "P1"))
        #expect(try pending.take(state: stale.state, session: nil, now: now.addingTimeInterval(HealthRecordLaunch.lifetime + 1)) == nil)
        #expect(try pending.outcome(state: "not-a-state") == .failed("the launch was forgotten"))
        await server.stop()
    }
}
