import ArgumentParser
import CarePlan
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
            abstract: "Email the care report to a contact: the report as the message, its PDF attached.",
            discussion: """
                The SMTP server is --smtp smtp://HOST[:PORT] (STARTTLS required) or smtps://HOST[:PORT]. Its user \
                and password come from --credentials FILE (user:password on the first line) or from \
                CARESYNC_SMTP_USER and CARESYNC_SMTP_PASSWORD; they are given to curl in a file only you can \
                read, never on a command line, and never logged.
                """)

        @OptionGroup var options: StoreOptions
        @OptionGroup var period: PeriodOptions

        @Option(help: ArgumentHelp("The contact to send it to (they need an email address).", valueName: "id"))
        var contact: String

        @Option(help: ArgumentHelp("The SMTP server.", valueName: "url"))
        var smtp: String

        @Option(help: ArgumentHelp("The sender, such as \"Zed's care <care@example.org>\".", valueName: "address"))
        var sender: String

        @Option(help: ArgumentHelp("A file with user:password for the SMTP server.", valueName: "file"))
        var credentials: String?

        @Option(help: ArgumentHelp("Certificates to trust for the SMTP server besides the system's.", valueName: "file"))
        var caFile: String?

        @OptionGroup var content: ReportOptions

        func run() async throws {
            try await reportingFailures {
                guard let server = URL(string: smtp) else { throw ValidationError("--smtp takes a URL, such as smtp://mail.example.org:587") }
                let mailer = try MailSender(server: server, credentials: try login(), certificateAuthorities: caFile)
                let store = try await options.open()
                guard let recipient = try await store.contact(contact) else { throw ValidationError("no contact \"\(contact)\"") }
                let zone = try await store.timeZone()
                let now = Date()
                let report = try await content.report(
                    from: store, days: try period.days(today: CalendarDay.containing(now, in: zone)), now: now)
                let pdf = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-share-\(UUID().uuidString).pdf")
                defer { try? FileManager.default.removeItem(at: pdf) }
                try await ReportPrinter().pdf(of: report.html, to: pdf)
                let mail = try ReportMail(report: report, pdf: try Data(contentsOf: pdf), from: sender, to: recipient)
                try await mailer.send(mail)
                emit("Sent the report of \(report.insights.first) – \(report.insights.last) to \(recipient.fullName) <\(recipient.email!)>")
            }
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
