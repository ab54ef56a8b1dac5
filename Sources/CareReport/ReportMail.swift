import CarePlan
import Foundation

/// The care report as an email (RFC 5322, MIME): the report's HTML as the body, with a plain
/// text part for readers without HTML, and its PDF attached.
public struct ReportMail: Sendable {
    public var from: String
    public var to: Contact
    public var subject: String
    public var html: String
    public var text: String
    public var pdf: Data
    public var pdfName: String
    public var date: Date

    /// The mail of `report` to `contact`, whose address must be known.
    public init(report: CareReport, pdf: Data, from: String, to contact: Contact) throws(ReportError) {
        guard contact.email != nil else { throw .noEmail(contact.identifier) }
        let wording = report.wording
        let period = report.phrase("range", ["first": wording.date(report.insights.first), "last": wording.date(report.insights.last)])
        self.from = from
        self.to = contact
        self.subject = "\(report.phrase("title")): \(report.planTitle), \(period)"
        self.html = report.html
        self.text = ([subject, ""] + report.insights.messages.map { "\($0.title): \($0.text)" } + ["", report.phrase("footer")])
            .joined(separator: "\n")
        self.pdf = pdf
        self.pdfName = "care-report-\(report.insights.first)-\(report.insights.last).pdf"
        self.date = report.madeAt
    }

    /// The whole message, lines ending in CRLF, none longer than 78 characters (long headers
    /// folded).
    public var message: String {
        let token = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20)
        let (mixed, alternative) = ("=_mixed_\(token)", "=_alternative_\(token)")
        var lines = [
            "From: \(from)",
            "To: \(Self.header(to.fullName)) <\(to.email!)>",
            "Subject: \(Self.header(subject))",
            "Date: \(Self.rfc5322(date))",
            "Message-ID: <\(UUID().uuidString.lowercased())@caresync>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/mixed;", " boundary=\"\(mixed)\"",
            "",
            "--\(mixed)",
            "Content-Type: multipart/alternative;", " boundary=\"\(alternative)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += ["--\(alternative)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(Data(body.utf8))
        }
        lines += ["--\(alternative)--", "", "--\(mixed)",
                  "Content-Type: application/pdf;", " name=\"\(pdfName)\"",
                  "Content-Disposition: attachment;", " filename=\"\(pdfName)\"",
                  "Content-Transfer-Encoding: base64", ""]
        lines += Self.base64Lines(pdf)
        lines += ["--\(mixed)--", ""]
        return lines.joined(separator: "\r\n")
    }

    /// Base64 in lines of 76 characters (RFC 2045).
    static func base64Lines(_ data: Data) -> [String] {
        let encoded = data.base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
        }
    }

    /// A header value: as it is in ASCII, else RFC 2047 encoded words (UTF-8, base64) of 60
    /// characters at most, whole characters in each, on folded lines (a header's first line
    /// then stays within 76 characters).
    static func header(_ value: String) -> String {
        guard !value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) else { return value }
        var words: [String] = []
        var chunk = ""
        for character in value {
            if (chunk + String(character)).utf8.count > 36 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        words.append(chunk)
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// `Thu, 26 Nov 2026 12:00:00 +0000`.
    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }
}
