import Crypto
import Foundation
import Testing

/// `caresync share report --household`: a running primary sends the report to a paired
/// household device (`household-sim`), which keeps it; the history records the share; a
/// device that was away gets what was shared meanwhile, once.
struct ReportShareScenarioTests {
    let scratch = Scratch()

    /// The fingerprint of the one paired device of `role`.
    func device(_ role: String, in caresync: CareSyncCommand) async throws -> String {
        let listed = try await caresync.run("devices", "--json")
        let devices = listed.lines.compactMap(WatchProcess.object).filter { $0["role"] as? String == role }
        return try #require(devices.count == 1 ? devices[0]["id"] as? String : nil, "\(listed.stdout)")
    }

    func share(_ caresync: CareSyncCommand, _ arguments: String...) async throws -> CareSyncCommand.Result {
        try await CareSyncCommand.run(
            executable: CareSyncCommand.executable, ["share", "report", "--week", "2026-11-18"] + arguments + ["--store", caresync.store])
    }

    @Test func aHouseholdDeviceKeepsTheSharedReportAndTheHistorySaysSo() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let stateDir = scratch.path("household")
        var household = try await WatchProcess(
            endpoint: primary.endpoint, stateDir: stateDir, store: caresync.store, role: "household", simulator: "household-sim")
        try await household.waitFor("context")
        let id = try await device("household", in: caresync)

        let shared = try await share(caresync, "--household", String(id.prefix(12)), "--format", "html")
        #expect(shared.status == 0, "\(shared.stderr)")
        let report = try await household.waitFor("report").last!
        let path = try #require(report["path"] as? String)
        // Each person's reports in a directory of their own, named as their state's.
        let person = try #require(household.messages("context").last?["personID"] as? String)
        #expect(path == stateDir + "/reports/\(person.prefix(16))/care-report-2026-11-16-2026-11-22.html")
        #expect(report["mediaType"] as? String == "application/xhtml+xml")
        #expect(report["from"] as? String == "2026-11-16" && report["through"] as? String == "2026-11-22")
        let saved = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(report["bytes"] as? Int == saved.count)
        #expect(report["sha256"] as? String == SHA256.hash(data: saved).map { String(format: "%02x", $0) }.joined())
        #expect(String(decoding: saved, as: UTF8.self).contains("<h1>Care report: ZombieCare</h1>"))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        let entry = try #require(history.last)
        #expect(entry["kind"] as? String == "reportShared" && entry["pairedDevice"] as? String == id)
        let recorded = try #require(entry["share"] as? [String: Any])
        #expect(recorded["device"] as? String == id && recorded["address"] as? String == "Household")
        #expect(recorded["from"] as? String == "2026-11-16" && recorded["through"] as? String == "2026-11-22")
        // The device reads the same entry in the primary's history.
        household.send("history")
        let seen = try await household.waitFor("history", count: history.count)
        #expect(seen.contains { $0["kind"] as? String == "reportShared" && $0["sharedTo"] as? String == "Household" })

        // Away while another report is shared, it gets that one when it connects, and only that one.
        #expect(await household.quit())
        let second = try await share(caresync, "--household", id, "--format", "html", "--lang", "de")
        #expect(second.status == 0, "\(second.stderr)")
        household = try await WatchProcess(
            endpoint: primary.endpoint, stateDir: stateDir, store: caresync.store, role: "household", simulator: "household-sim")
        let again = try await household.waitFor("report")
        #expect(again.count == 1 && (again[0]["revision"] as? Int ?? 0) > (report["revision"] as? Int ?? .max))
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).contains("<h1>Pflegebericht"))
        try await household.waitFor("context")
        #expect(household.messages("report").count == 1)
    }

    @Test func onlyAHouseholdDeviceThatWasNotRevokedCanReceiveIt() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("context")
        let refused = try await share(caresync, "--household", try await device("watch", in: caresync), "--format", "html")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("cannot receive the report: it is paired as a watch"), "\(refused.stderr)")
        #expect(try await share(caresync, "--household", "00000000", "--format", "html").stderr.contains("no paired device"))
        #expect(try await share(caresync, "--format", "html").stderr.contains("give either --contact or --household"))
        let history = try await caresync.run("history", "--json").lines.compactMap(WatchProcess.object)
        #expect(!history.contains { $0["kind"] as? String == "reportShared" })
    }
}
