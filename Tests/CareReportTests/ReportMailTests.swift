import CarePlan
@testable import CareReport
import Foundation
import Testing

/// The report's mail as MIME: headers a mail client reads back, parts in lines it accepts.
struct ReportMailTests {
    @Test func theMessageIsMultipartWithThePDFAttached() async throws {
        let report = try await ReportFixture().report("de")
        let doctor = try Contact(identifier: "dr", kind: .careTeam, givenName: "Jürgen", familyName: "Müller", email: "jm@example.org")
        let pdf = Data("%PDF-1.4 ".utf8) + Data(repeating: 0xAB, count: 5_000)
        let mail = try ReportMail(report: report, pdf: pdf, from: "care@example.org", to: doctor)
        let message = mail.message
        let lines = message.components(separatedBy: "\r\n")
        // Every line within RFC 5322's 78 characters; non-ASCII headers as encoded words.
        #expect(lines.filter { $0.utf8.count > 78 }.isEmpty, "\(lines.filter { $0.utf8.count > 78 })")
        #expect(lines.contains("To: =?UTF-8?B?\(Data("Jürgen Müller".utf8).base64EncodedString())?= <jm@example.org>"))
        let subject = lines.drop { !$0.hasPrefix("Subject: ") }.prefix { $0.hasPrefix("Subject: ") || $0.hasPrefix(" ") }
        let decoded = subject.map { line in
            let word = line.drop { $0 != "=" }.dropFirst(10).dropLast(2)
            return String(decoding: Data(base64Encoded: String(word))!, as: UTF8.self)
        }.joined()
        #expect(decoded == "Pflegebericht: ZombieCare, 16. Nov. 2026 – 25. Nov. 2026")
        #expect(message.contains("Content-Type: application/pdf;\r\n name=\"care-report-2026-11-16-2026-11-25.pdf\""))
        // The attachment decodes to the PDF given.
        let base64 = lines.drop { $0 != " filename=\"care-report-2026-11-16-2026-11-25.pdf\"" }
            .dropFirst(3).prefix { !$0.hasPrefix("--") }.joined()
        #expect(Data(base64Encoded: base64) == pdf)
        #expect(throws: ReportError.noEmail("rick")) {
            try ReportMail(report: report, pdf: pdf, from: "care@example.org", to: try Contact(identifier: "rick", kind: .personal, givenName: "Rick"))
        }
    }

    @Test func theSenderMustBeAnAddressAndTheServerSMTP() throws {
        #expect(try MailSender.address(in: "Zed's care <care@example.org>") == "care@example.org")
        #expect(throws: ReportError.self) { try MailSender.address(in: "Zed's care") }
        #expect(throws: ReportError.self) { try MailSender(server: URL(string: "http://mail.example.org")!) }
    }
}
