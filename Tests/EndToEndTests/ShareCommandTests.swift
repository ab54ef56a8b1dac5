import ChildProcess
import Foundation
import Testing
import Waiting

/// `caresync share report` against a real SMTP server on loopback (aiosmtpd, with STARTTLS and
/// AUTH required, and a certificate this test makes): the mail that arrives is the report,
/// with its PDF attached.
struct ShareCommandTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand

    /// A mail as the server saved it.
    struct Received: Decodable {
        struct Part: Decodable { var type: String; var filename: String?; var size: Int; var start: String; var text: String? }
        var from: String; var to: [String]; var tls: Bool; var user: String?; var subject: String; var headerTo: String; var parts: [Part]
    }

    /// The server's process and port; its standard input, closed to stop it.
    struct Server {
        var process: Process
        var input: Pipe
        var port: Int
        var inbox: URL

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-16")
        guard load.status == 0 else { throw CommandFailed(result: load) }
    }

    /// A self-signed certificate for 127.0.0.1, and the server using it.
    func startServer() async throws -> Server {
        let (cert, key) = (scratch.path("cert.pem"), scratch.path("key.pem"))
        let openssl = try await CareSyncCommand.run(executable: URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
        ])
        guard openssl.status == 0 else { throw CommandFailed(result: openssl) }
        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [CareSyncCommand.repository.appendingPathComponent("Tests/Fixtures/smtp/smtp-sink.py").path,
                             cert, key, inbox.path, "carer", "s3cret-pass"]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        try process.runUnblocked()
        let line = await blocking { () -> String in
            var line = Data()
            while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
            return String(decoding: line, as: UTF8.self)
        }
        guard line.hasPrefix("listening "), let port = Int(line.dropFirst("listening ".count)) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the SMTP server said \"\(line)\""])
        }
        return Server(process: process, input: input, port: port, inbox: inbox)
    }

    func share(_ server: Server, contact: String = "dr-ruiz", credentials: String) async throws -> CareSyncCommand.Result {
        try "\(credentials)\n".write(toFile: scratch.path("smtp-login"), atomically: true, encoding: .utf8)
        return try await CareSyncCommand.run(executable: CareSyncCommand.executable, [
            "share", "report", "--contact", contact, "--week", "2026-11-18", "--smtp", "smtp://127.0.0.1:\(server.port)",
            "--sender", "Zed's care <care@example.org>", "--credentials", scratch.path("smtp-login"),
            "--ca-file", scratch.path("cert.pem"), "--store", scratch.path("store.sqlite"),
        ])
    }

    @Test func theReportArrivesWithItsPDFOverSTARTTLS() async throws {
        let server = try await startServer()
        defer { server.stop() }
        let sent = try await share(server, credentials: "carer:s3cret-pass")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.lines == ["Sent the report of 2026-11-16 – 2026-11-22 to Maria Ruiz <maria.ruiz@example.org>"])
        let file = server.inbox.appendingPathComponent("message-1.json")
        let mail = try JSONDecoder().decode(Received.self, from: Data(contentsOf: file))
        #expect(mail.from == "care@example.org" && mail.to == ["maria.ruiz@example.org"])
        #expect(mail.tls && mail.user == "carer")
        #expect(mail.subject == "Care report: ZombieCare, 16 Nov 2026 – 22 Nov 2026")
        #expect(mail.headerTo == "Maria Ruiz <maria.ruiz@example.org>")
        #expect(mail.parts.map(\.type) == ["text/plain", "text/html", "application/pdf"])
        #expect(mail.parts[0].text?.contains("Golden apple: below target: 0 of 21 due events done") == true)
        #expect(mail.parts[1].text?.contains("<h1>Care report: ZombieCare</h1>") == true)
        let pdf = mail.parts[2]
        #expect(pdf.filename == "care-report-2026-11-16-2026-11-22.pdf" && pdf.start == "%PDF-" && pdf.size > 10_000)
        // The history records who sent which days to whom.
        let entry = try #require(try await caresync.run("history", "--json").lines.last.flatMap(WatchProcess.object))
        #expect(entry["kind"] as? String == "reportShared" && entry["device"] as? String == "caresync-cli")
        let share = try #require(entry["share"] as? [String: Any])
        #expect(share["contact"] as? String == "dr-ruiz" && share["address"] as? String == "maria.ruiz@example.org")
        #expect(share["from"] as? String == "2026-11-16" && share["through"] as? String == "2026-11-22")
        let line = try await caresync.run("history").lines.last ?? ""
        #expect(line.hasSuffix("report of 2026-11-16–2026-11-22 shared with contact dr-ruiz <maria.ruiz@example.org>"), "\(line)")
    }

    @Test func aWrongPasswordOrAContactWithoutAddressSendsNothingAndSaysWhy() async throws {
        let server = try await startServer()
        defer { server.stop() }
        let refused = try await share(server, credentials: "carer:wrong-pass")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the SMTP server did not take the mail"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-pass"))
        // Rick has a phone number but no email address.
        let noAddress = try await share(server, contact: "rick", credentials: "carer:s3cret-pass")
        #expect(noAddress.stderr.contains("the contact rick has no email address"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.inbox.path).isEmpty)
        #expect(try await !caresync.run("history").stdout.contains("report of"))
    }
}
