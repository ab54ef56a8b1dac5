import ArgumentParser
import CareFHIR
import CarePlanStore
import CommandOptions
import Foundation
import LineOutput

struct FHIRExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every dose taken or missed as a FHIR MedicationAdministration in a transaction Bundle.",
        discussion: """
            Examples:
              caresync fhir export --out doses.json
              caresync fhir export --server https://fhir.example.org/r4
            Without --server the Bundle goes to --out or standard output and covers the outcomes \
            after --since (default 0). With --server it is posted in transactions of --batch-size, \
            from where the last export to that server stopped unless --since says otherwise; the \
            store remembers how far each transaction got. Entries are conditional creates, so \
            sending the same outcomes again creates nothing new.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Only outcomes recorded or replaced after this revision.")
    var since: Int?

    @Option(help: ArgumentHelp("Write the Bundle to this file.", valueName: "file"))
    var out: String?

    @Flag(help: "DSTU2's MedicationAdministration (wasNotGiven, prescription) instead of R4's.")
    var dstu2 = false

    @OptionGroup var upload: FHIRServerOptions

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    func validate() throws {
        guard since.map({ $0 >= 0 }) ?? true else { throw ValidationError("--since must be 0 or more") }
    }

    private var server: String? { upload.server }

    func run() async throws {
        let logger = logging.bootstrap("caresync.fhir")
        try await reportingFailures {
            let store = try await options.open()
            let version: DoseAdministration.Version = dstu2 ? .dstu2 : .r4
            let uploader = try upload.poster(logger: logger).map { poster in
                AdministrationUploader(store: store, poster: poster, version: version, batchSize: upload.batchSize)
            }
            var after = since ?? 0
            if since == nil, let uploader { after = try await store.measurements.cursor(uploader.cursorName) ?? 0 }
            let export = try await AdministrationCollector(store: store).collect(after: after)
            var summary = ExportSummary(export)
            if out != nil || uploader == nil {
                try writeBundle(try DoseAdministration.bundle(export.doses, version: version), to: out)
            }
            try await uploader?.upload(export) { progress in
                summary.add(progress)
                if !json {
                    say("sent \(progress.administrations) to \(server ?? ""): \(progress.created) created, "
                        + "\(progress.existing) already there, \(progress.withdrawn) withdrawn; cursor at revision \(progress.through)")
                }
            }
            if let uploader { summary.cursor = try await store.measurements.cursor(uploader.cursorName) ?? 0 }
            try json ? say(summary.json()) : say(summary.description)
        }
    }

    /// The summary goes to standard output, unless the Bundle does.
    private func say(_ line: String) {
        if out == nil && server == nil {
            LineOutput.standardError.write(text: line)
        } else {
            emit(line)
        }
    }
}

/// What an export did: its last line of output.
struct ExportSummary: Encodable, CustomStringConvertible {
    var administrations: Int
    var after: Int
    var through: Int
    var created: Int?
    var existing: Int?
    var withdrawn: Int?
    var cursor: Int?

    init(_ export: AdministrationExport) {
        administrations = export.doses.count
        after = export.after
        through = export.through
    }

    mutating func add(_ progress: UploadProgress) {
        created = (created ?? 0) + progress.created
        existing = (existing ?? 0) + progress.existing
        withdrawn = (withdrawn ?? 0) + progress.withdrawn
    }

    var description: String {
        let sent = created.map { ", \($0) created, \(existing ?? 0) already there, \(withdrawn ?? 0) withdrawn" } ?? ""
        let kept = cursor.map { "; the next export starts after revision \($0)" } ?? ""
        let range = through > after ? "from revisions \(after + 1)...\(through)" : "after revision \(after)"
        return "\(administrations) administration\(administrations == 1 ? "" : "s") \(range)" + sent + kept
    }

    func json() throws -> String {
        try JSONLine.encode(self)
    }
}
