import ChildProcess
import Foundation
import Waiting

/// Sends a mail through an SMTP server with curl (Debian's `curl`): `smtp://` with STARTTLS
/// required, or `smtps://`. Credentials go to curl in a configuration file only its owner
/// can read, never on its command line (which every local user can see) nor in a log.
public struct MailSender: Sendable {
    /// A user name and password for the server's AUTH.
    public struct Credentials: Sendable {
        public var user: String
        public var password: String

        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// `user:password` on the first line of `file`.
        public init(file: String) throws(ReportError) {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw .mailFailed("cannot read the credentials file \(file)")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .mailFailed("the credentials file \(file) must hold user:password on its first line")
            }
            self.init(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
        }
    }

    public var server: URL
    public var credentials: Credentials?
    /// Certificates to trust besides the system's (a test server's own CA).
    public var certificateAuthorities: String?
    public var timeout: Duration = .seconds(60)

    public init(server: URL, credentials: Credentials? = nil, certificateAuthorities: String? = nil) throws(ReportError) {
        guard ["smtp", "smtps"].contains(server.scheme?.lowercased() ?? ""), server.host != nil else {
            throw .mailFailed("the SMTP server must be smtp://HOST[:PORT] (STARTTLS) or smtps://HOST[:PORT], not \(server)")
        }
        self.server = server
        self.credentials = credentials
        self.certificateAuthorities = certificateAuthorities
    }

    /// Sends `mail` to its contact; returns once the server has accepted it.
    public func send(_ mail: ReportMail) async throws(ReportError) {
        let message = mail.message
        let sender = try Self.address(in: mail.from)
        try await blocking { () throws(ReportError) in try deliver(message, from: sender, to: mail.to.email!) }
    }

    /// `a@b` of `Name <a@b>` or `a@b`.
    static func address(in from: String) throws(ReportError) -> String {
        let address = from.split(separator: "<").last.map { $0.split(separator: ">").first.map(String.init) ?? "" } ?? from
        guard address.contains("@"), !address.contains(where: \.isWhitespace) else {
            throw .mailFailed("the sender must be an address, such as care@example.org, not \"\(from)\"")
        }
        return address
    }

    private func deliver(_ message: String, from sender: String, to recipient: String) throws(ReportError) {
        let curl = "/usr/bin/curl"
        guard FileManager.default.isExecutableFile(atPath: curl) else {
            throw .mailFailed("sending mail needs curl (Debian: apt-get install curl, or scripts/install-deps)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-mail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("curl.conf")
        let body = scratch.appendingPathComponent("message.eml")
        var lines = [
            "url = \(Self.quoted(server.absoluteString))", "mail-from = \(Self.quoted(sender))", "mail-rcpt = \(Self.quoted(recipient))",
            "upload-file = \(Self.quoted(body.path))", "ssl-reqd", "silent", "show-error", "max-time = \(timeout.components.seconds)",
        ]
        if let credentials { lines.append("user = \(Self.quoted("\(credentials.user):\(credentials.password)"))") }
        if let certificateAuthorities { lines.append("cacert = \(Self.quoted(certificateAuthorities))") }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(
                atPath: config.path, contents: Data((lines.joined(separator: "\n") + "\n").utf8), attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: config.path]) }
            try Data(message.utf8).write(to: body)
        } catch {
            throw .mailFailed("cannot write the message: \(error)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = ["--config", config.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.runUnblocked() } catch { throw .mailFailed("curl could not be started: \(error)") }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            // curl's message names the failure (refused, TLS, AUTH); it never holds the password.
            throw .mailFailed("the SMTP server did not take the mail (curl \(process.terminationStatus)): "
                + text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// A value for curl's configuration file, in double quotes with `\` and `"` escaped.
    private static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
