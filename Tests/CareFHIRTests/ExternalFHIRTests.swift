import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import ChildProcess
import Foundation
import Testing
import Waiting

/// FHIR data CareSync's authors did not write (`../shared/external-fhir/`: HL7's R4
/// MedicationRequest examples, Synthea R4 and DSTU2 bundles, SMART's DSTU2 bundles), read
/// where it lies, never copied in. Skipped where the folder is missing.
struct ExternalFHIRTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/external-fhir")
    static let files: [URL] = {
        let subfolders = ["hl7-r4", "synthea-r4", "dstu2"].map { folder.appendingPathComponent($0) }
        return subfolders.flatMap { (try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)) ?? [] }
            .filter { $0.lastPathComponent.hasSuffix(".json") || $0.lastPathComponent.hasSuffix(".json.gz") }
            .sorted { $0.path < $1.path }
    }()
    static let importDay = CalendarDay("2026-11-26")!

    /// The file's JSON, through `gzip -dc` where it is compressed.
    static func contents(_ file: URL) throws -> Data {
        guard file.pathExtension == "gz" else { return try Data(contentsOf: file) }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", file.path]
        let pipe = Pipe()
        gzip.standardOutput = pipe
        try gzip.runUnblocked()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        return data
    }

    @Test(.enabled(if: !files.isEmpty, "../shared/external-fhir is not here"))
    func theFolderHoldsWhatTheIssueNamed() {
        #expect(Self.files.count >= 61)
    }

    /// Every file imports (a refusal only with a path and reason); importing it again, the
    /// same day or a week later, changes nothing; and for each active order the doses a day
    /// its dosage implies (``ExpectedDoses``) are the events CareSync makes on three sample
    /// days. One test per file, so that each (up to 2.7 MB) is read once, and read and parsed
    /// on a thread of its own: parsed on the tasks' threads, the files held every one of them
    /// and other suites' waits ran out (CI saw a change feed silent for 20 s).
    @Test(.enabled(if: !files.isEmpty, "../shared/external-fhir is not here"), arguments: files)
    func importsWholeAndAsTheDosageSays(_ file: URL) async throws {
        let input = try await blocking { try FHIRInput.parse(Self.contents(file), document: file.lastPathComponent) }
        try await withStore { store, _ throws in
            let first = try await importer(Self.importDay).run(input, into: store)
            #expect(first.imported == input.orders.count)
            #expect(first.imported > 0 || input.orders.isEmpty)
            for refusal in first.refused {
                #expect(refusal.path.hasPrefix("Bundle.entry[") || refusal.path.hasPrefix("Medication"), "\(refusal)")
                #expect(!refusal.reason.isEmpty)
            }
            for day in [Self.importDay, Self.importDay.adding(days: 7)] {
                let again = try await importer(day).run(input, into: store)
                #expect(again.added.isEmpty && again.updated.isEmpty && again.ended.isEmpty, "\(again)")
                #expect(again.revision == first.revision)
            }
        }
        let mapper = try importer(Self.importDay).mapper
        for order in input.orders where order.status == "active" {
            guard let expected = ExpectedDoses(order: order, zone: berlin, today: Self.importDay) else { continue }
            let activities = try mapper.map(order).activities.map(\.activity)
            for day in [Self.importDay, Self.importDay.adding(days: 1), Self.importDay.adding(days: 5)] {
                let due = activities.filter { !$0.schedule.asNeeded }.reduce(0) { $0 + $1.schedule.occurrenceCount(on: day) }
                #expect(due == expected.doses(on: day), "\(order.reference) in \(file.lastPathComponent) on \(day)")
            }
        }
    }

    /// HL7's examples of a loading dose then a maintenance dose (0302) and of insulin in
    /// sequences 2, 2, 1 (0321) give the earlier step no end: the later steps are held for
    /// review, the earlier one scheduled, and no day has doses of both.
    @Test(.enabled(if: !files.isEmpty, "../shared/external-fhir is not here"),
          arguments: [("medicationrequest0302.json", ["rx-12345689/2"]), ("medicationrequest0321.json", ["rx-12345689/2", "rx-12345689/3"])])
    func aStepAfterAnOpenStepIsHeldNeverScheduledBesideIt(file: String, held: [String]) async throws {
        let input = try FHIRInput.parse(Self.contents(Self.folder.appendingPathComponent("hl7-r4/" + file)), document: file)
        try await withStore { store, _ throws in
            let report = try await importer(Self.importDay).run(input, into: store)
            #expect(report.refused.isEmpty)
            #expect(report.held.flatMap(\.holds).map(\.activityID) == held)
            #expect(report.held.flatMap(\.holds).allSatisfy { $0.reason == .followsOpenStep })
            let scheduled = Set(try await store.plan.activities().map(\.activity.identifier))
            #expect(scheduled.isDisjoint(with: held) && scheduled.count == 1)
            let start = try #require(input.orders.first?.authoredOn?.day(in: berlin))
            for day in (0..<60).map({ start.adding(days: $0) }) {
                let due = Set(try await store.outcomes.events(on: day).map(\.activity.identifier))
                #expect(due == scheduled, "on \(day)")
            }
            let listed = try await HeldMedication.all(in: store, text: DosageText(language: try Language("en")))
            #expect(listed.map(\.activityID) == held)
        }
    }

    func importer(_ day: CalendarDay) throws -> FHIRImporter {
        FHIRImporter(mapper: OrderMapper(today: day, timeZone: berlin, language: try Language("en")), device: "test")
    }
}
