import FHIRTestServer
import Foundation
import Testing

/// End-to-end: `caresync fhir export --server` against the in-process FHIRTestServer on loopback:
/// conditional create, the cursor, retries, and the errors a person sees.
struct FHIRExportServerTests {
    let round: FHIRExportTests

    init() async throws {
        round = try await FHIRExportTests()
        try await round.recordDoses()
    }

    /// `fhir export --server URL --json ARGS…`, its summary decoded.
    func export(to server: FHIRTestServer, _ arguments: String...) async throws -> ExportSummary {
        let result = try await round.caresync.run(["fhir", "export", "--server", server.url, "--json", "--retry-delay", "0.01"] + arguments)
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return try JSONDecoder().decode(ExportSummary.self, from: Data(result.stdout.utf8))
    }

    /// The administrations the server holds: identifier value → status.
    func held(by server: FHIRTestServer) -> [String: String] {
        let resources = server.resources("MedicationAdministration")
        return Dictionary(uniqueKeysWithValues: resources.map {
            (value($0, "identifier", 0, "value") as? String ?? "", $0["status"] as? String ?? "")
        })
    }

    @Test func sendingAgainCreatesNothingAndTheCursorResumes() async throws {
        let server = try await FHIRTestServer()
        let first = try await export(to: server)
        #expect(first.administrations == 5 && first.created == 5 && first.existing == 0 && first.withdrawn == 0)
        #expect(first.cursor == first.through)
        #expect(held(by: server).count == 5)

        let nothingNew = try await export(to: server)
        #expect(nothingNew.administrations == 0 && nothingNew.after == first.through)
        #expect(server.requests.filter { $0.method == "POST" }.count == 1)

        let again = try await export(to: server, "--since", "0")
        #expect(again.administrations == 5 && again.created == 0 && again.existing == 5)
        #expect(held(by: server).count == 5)

        // One more dose, and a dose taken after all: only they are sent; the replaced one is withdrawn.
        try await round.run("complete", "rx-RX-1001", "--occurrence", "2", "--date", "2016-08-15")
        let change = try await round.run("complete", "rx-RX-1001", "--occurrence", "1", "--date", "2016-08-15")
        let next = try await export(to: server)
        #expect(next.after == first.through && next.administrations == 3 && next.created == 2 && next.withdrawn == 1)
        let held = held(by: server)
        #expect(held.count == 7)
        #expect(held.filter { $0.key.hasPrefix("rx-RX-1001/2016-08-15/1/") }.values.sorted() == ["completed", "entered-in-error"])
        #expect(change.stdout.hasSuffix("revision \(next.through)\n"))
    }

    @Test func batchesMoveTheCursorSoAFailedUploadResumesWhereItStopped() async throws {
        let server = try await FHIRTestServer(options: .init(fail: [3]))
        let failed = try await round.caresync.run(
            ["fhir", "export", "--server", server.url, "--batch-size", "2", "--attempts", "1"])
        #expect(failed.status == 1)
        #expect(failed.lines.count == 2 && failed.lines.allSatisfy { $0.hasPrefix("sent 2 to \(server.url): 2 created") })
        #expect(failed.stderr == "caresync: the FHIR server at \(server.url) kept failing (1 attempt, last HTTP 503): "
            + "the test server fails this request on purpose\n")
        let resumed = try await export(to: server, "--batch-size", "2")
        #expect(resumed.administrations == 1 && resumed.created == 1)
        #expect(held(by: server).count == 5)
    }

    @Test func failuresAndTimeoutsAreRetriedWithBackoff() async throws {
        let flaky = try await FHIRTestServer(options: .init(fail: [1, 2]))
        #expect(try await export(to: flaky).created == 5)
        #expect(flaky.requests.filter { $0.method == "POST" }.map(\.status) == [503, 503, 200])

        let slow = try await FHIRTestServer(options: .init(hang: [1]))
        #expect(try await export(to: slow, "--timeout", "0.5").created == 5)
        #expect(slow.requests.filter { $0.method == "POST" }.count == 2)
    }

    @Test func refusalsUnreachableServersAndBadURLsAreOneLineAndMoveNoCursor() async throws {
        let refusing = try await FHIRTestServer(options: .init(refuse: 422))
        let url = refusing.url
        let cases: [([String], String)] = [
            (["--server", url], "the FHIR server at \(url) refused the export (HTTP 422): the test server refuses every transaction"),
            (["--server", "ftp://example.org/fhir"], "\"ftp://example.org/fhir\" is not a FHIR server URL"),
            (["--server", "http://127.0.0.1:1/", "--attempts", "2", "--retry-delay", "0.01"],
             "cannot reach the FHIR server at http://127.0.0.1:1/ (2 attempts): connection refused"),
            (["--server", url, "--since=-1"], "--since must be 0 or more"),
        ]
        for (arguments, message) in cases {
            let result = try await round.caresync.run(["fhir", "export"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // Nothing was recorded as sent: the next export sends everything again.
        #expect(try await round.caresync.run(["fhir", "export", "--server", url]).status == 1)
        #expect(refusing.requests.filter { $0.method == "POST" }.map { "\($0.status ?? 0) \($0.entries)" }
            == ["422 5", "422 5"])
    }
}
