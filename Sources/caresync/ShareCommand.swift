import CareCore
import ArgumentParser
import CarePlan
import CarePlanStore
import CareReport
import Foundation
import LineOutput

/// `caresync share report`: the care report sent to a contact by email.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share", abstract: "Share the care report with the care team.", subcommands: [Report.self])

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Share the care report: by email with a contact, or with a paired household device.",
            discussion: """
                With --contact ID it is emailed: the report as the message, its PDF attached. The SMTP server is \
                --smtp smtp://HOST[:PORT] (STARTTLS required) or smtps://HOST[:PORT]. Its user and password come \
                from --credentials FILE (user:password on the first line) or from CARESYNC_SMTP_USER and \
                CARESYNC_SMTP_PASSWORD; they are given to curl in a file only you can read, never on a command \
                line, and never logged.

                With --household ID (a household device's fingerprint, or a unique beginning of it) the report is \
                kept in the store for the device, as PDF or HTML (--format), and the primary sends it over the sync \
                protocol at once if the device is connected, else when it next connects.

                Either way the history records who shared which days with whom (who: --device, as for every change).
                """)

        @OptionGroup var options: StoreOptions
        @OptionGroup var period: PeriodOptions

        @Option(help: ArgumentHelp("The contact to email it to (they need an email address).", valueName: "id"))
        var contact: String?

        @Option(help: ArgumentHelp("The household device to send it to.", valueName: "id"))
        var household: String?

        @Option(help: "For a household device: pdf or html.")
        var format: ReportFormat = .pdf

        @Option(help: ArgumentHelp("The SMTP server (with --contact).", valueName: "url"))
        var smtp: String?

        @Option(help: ArgumentHelp("The sender, such as \"Zed's care <care@example.org>\" (with --contact).", valueName: "address"))
        var sender: String?

        @Option(help: ArgumentHelp("A file with user:password for the SMTP server.", valueName: "file"))
        var credentials: String?

        @Option(help: ArgumentHelp("Certificates to trust for the SMTP server besides the system's.", valueName: "file"))
        var caFile: String?

        @OptionGroup var content: ReportOptions

        enum ReportFormat: String, ExpressibleByArgument {
            case pdf, html
        }

        func validate() throws {
            guard (contact == nil) != (household == nil) else { throw ValidationError("give either --contact or --household") }
            if contact != nil, smtp == nil || sender == nil { throw ValidationError("--contact needs --smtp and --sender") }
        }

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let zone = try await store.plan.timeZone()
                let now = Date()
                let days = try period.days(today: CalendarDay.containing(now, in: zone))
                if let household {
                    try await share(with: try await store.devices.device(named: household), from: store, days: days, now: now)
                } else if let contact, let smtp, let sender {
                    try await email(to: contact, server: smtp, sender: sender, from: store, days: days, now: now)
                }
            }
        }

        /// Emails the report to the contact, then records the share.
        private func email(
            to contactID: String, server: String, sender: String, from store: CarePlanStore, days: ClosedRange<CalendarDay>, now: Date
        ) async throws {
            guard let server = URL(string: server) else { throw ValidationError("--smtp takes a URL, such as smtp://mail.example.org:587") }
            let mailer = try MailSender(server: server, credentials: try login(), certificateAuthorities: caFile)
            guard let recipient = try await store.plan.contact(contactID) else { throw ValidationError("no contact \"\(contactID)\"") }
            let report = try await content.report(from: store, days: days, now: now)
            let mail = try ReportMail(report: report, pdf: try await pdf(of: report), from: sender, to: recipient)
            try await mailer.send(mail)
            let share = ReportShare(recipient: .contact(recipient.identifier), address: recipient.email ?? "", days: days)
            try await CareCore(store: store).shares.recordShare(share, device: options.device)
            emit("Sent the report of \(days.lowerBound) – \(days.upperBound) to \(recipient.fullName) <\(recipient.email ?? "")>")
        }

        /// Keeps the report for a household device, recording the share; the primary sends it.
        private func share(
            with recipient: PairedDevice, from store: CarePlanStore, days: ClosedRange<CalendarDay>, now: Date
        ) async throws {
            let report = try await content.report(from: store, days: days, now: now)
            let bytes = format == .pdf ? try await pdf(of: report) : Data(report.html.utf8)
            let delivery = ReportDelivery(
                device: recipient.id, fileName: "care-report-\(days.lowerBound)-\(days.upperBound).\(format.rawValue)",
                mediaType: format == .pdf ? "application/pdf" : "application/xhtml+xml", content: [UInt8](bytes), days: days)
            let change = try await CareCore(store: store).shares.share(delivery, device: options.device)
            emit("Shared the report of \(days.lowerBound) – \(days.upperBound) with \(recipient.name) (revision \(change.revision)); "
                + "the primary sends it when the device is connected")
        }

        /// The report printed to PDF through headless Chromium.
        private func pdf(of report: CareReport) async throws -> Data {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-share-\(UUID().uuidString).pdf")
            defer { try? FileManager.default.removeItem(at: file) }
            try await ReportPrinter().pdf(of: report.html, to: file)
            return try Data(contentsOf: file)
        }

        /// The SMTP login from --credentials, else the environment, else none.
        private func login() throws -> MailSender.Credentials? {
            if let credentials { return try MailSender.Credentials(file: credentials) }
            let environment = ProcessInfo.processInfo.environment
            guard let user = environment["CARESYNC_SMTP_USER"] else { return nil }
            return MailSender.Credentials(user: user, password: environment["CARESYNC_SMTP_PASSWORD"] ?? "")
        }
    }
}
