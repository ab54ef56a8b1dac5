import CareFHIR
import FHIRTestServer
import Foundation
import Testing

/// The test server's own promise, which the export tests rest on: a transaction is applied
/// whole or not at all, and a search by identifier finds what the last transaction left.
struct FHIRTestServerTests {
    static func transaction(_ entries: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["resourceType": "Bundle", "type": "transaction", "entry": entries])
    }

    static func patient(_ identifier: String, method: String = "POST", url: String = "Patient") -> [String: Any] {
        [
            "resource": ["resourceType": "Patient", "identifier": [["system": "urn:test", "value": identifier]]],
            "request": ["method": method, "url": url],
        ]
    }

    /// The ids of the Patients a search by identifier `value` finds.
    static func search(_ server: FHIRTestServer, _ value: String) async throws -> [String] {
        let bundle = try JSONSerialization.jsonObject(with: try await FHIRClient(base: server.base).get("\(server.base)/Patient?identifier=urn:test|\(value)"))
        return ((bundle as? [String: Any])?["entry"] as? [[String: Any]] ?? []).compactMap { ($0["resource"] as? [String: Any])?["id"] as? String }
    }

    @Test func aTransactionWithABadEntryChangesNothingAndTheIndexFollows() async throws {
        let server = try await FHIRTestServer()
        let poster = try TransactionPoster(url: server.base, policy: RetryPolicy(attempts: 1))
        _ = try await poster.post(Self.transaction([Self.patient("a")]))
        let id = try #require(try await Self.search(server, "a").first)

        // The update to "b" and a new Patient, then an entry it cannot process: all undone.
        let bad: [String: Any] = ["resource": ["resourceType": "Device"], "request": ["method": "POST", "url": "Patient"]]
        let attempt = try Self.transaction([Self.patient("b", method: "PUT", url: "Patient/\(id)"), Self.patient("c"), bad])
        await #expect(throws: FHIRExportError.self) { try await poster.post(attempt) }
        #expect(server.resources("Patient").count == 1)
        #expect(try await Self.search(server, "a") == [id])
        #expect(try await Self.search(server, "b").isEmpty)
        #expect(try await Self.search(server, "c").isEmpty)

        // Applied whole, the update moves the identifier.
        _ = try await poster.post(Self.transaction([Self.patient("b", method: "PUT", url: "Patient/\(id)")]))
        #expect(try await Self.search(server, "a").isEmpty)
        #expect(try await Self.search(server, "b") == [id])
        await server.stop()
    }
}
