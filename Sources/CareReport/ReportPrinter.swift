import ChildProcess
import Foundation
import Synchronization
import Waiting

/// Prints a report's HTML to PDF with headless Chromium (Debian's `chromium`), in a network
/// namespace of its own where one can be made: the document needs nothing from outside, and
/// the browser is given no way to reach it.
public struct ReportPrinter: Sendable {
    /// The browser's path; `nil` when none is installed.
    public let browser: String?
    /// The longest a print may take.
    public var timeout: Duration = .seconds(120)

    /// Finds `chromium` (or `chromium-browser`) on the `PATH`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        browser = ["chromium", "chromium-browser"].lazy.flatMap { name in path.map { "\($0)/\(name)" } }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Writes `html` as the PDF file `output`; the browser is waited for on a thread of its own.
    public func pdf(of html: String, to output: URL) async throws(ReportError) {
        guard let browser else { throw .noBrowser }
        try await blocking { () throws(ReportError) in try render(html, to: output, with: browser) }
    }

    private func render(_ html: String, to output: URL, with browser: String) throws(ReportError) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let page = scratch.appendingPathComponent("report.html")
        let pdf = scratch.appendingPathComponent("report.pdf")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data(html.utf8).write(to: page)
        } catch {
            throw .cannotWrite(page.path, "\(error)")
        }
        let arguments = [
            "--headless", "--disable-gpu", "--no-pdf-header-footer", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--user-data-dir=\(scratch.appendingPathComponent("profile").path)",
            "--print-to-pdf=\(pdf.path)",
        ] + (geteuid() == 0 ? ["--no-sandbox"] : []) + [page.absoluteString]
        var result = run("/usr/bin/unshare", ["--net"] + (geteuid() == 0 ? [] : ["--map-root-user"]) + [browser] + arguments)
        if result?.status != 0, !FileManager.default.fileExists(atPath: pdf.path) {
            // No network namespace here (unshare missing or not permitted): the browser alone.
            result = run(browser, arguments)
        }
        guard let result else { throw .printFailed("\(browser) could not be started") }
        guard result.status == 0, FileManager.default.fileExists(atPath: pdf.path) else {
            throw .printFailed(result.timedOut ? "no PDF after \(timeout)" : "\(browser) \(result.ending): \(result.errors.suffix(800))")
        }
        do {
            if FileManager.default.fileExists(atPath: output.path) { try FileManager.default.removeItem(at: output) }
            try FileManager.default.moveItem(at: pdf, to: output)
        } catch {
            throw .cannotWrite(output.path, "\(error)")
        }
    }

    private struct Finished {
        var status: Int32
        var errors: String
        var timedOut: Bool
        var signalled: Bool

        /// How it ended: `exited with 1`, `was killed by signal 11`.
        var ending: String { signalled ? "was killed by signal \(status)" : "exited with \(status)" }
    }

    /// Runs `executable` to its end (killed after `timeout`), keeping its standard error.
    private func run(_ executable: String, _ arguments: [String]) -> Finished? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.runUnblocked() } catch { return nil }
        let deadline = DispatchTime.now() + .seconds(Int(timeout.components.seconds))
        let killed = Mutex(false)
        let killer = DispatchWorkItem {
            killed.withLock { $0 = true }
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: killer)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        let timedOut = killed.withLock { $0 } && process.terminationReason == .uncaughtSignal
        return Finished(
            status: process.terminationStatus, errors: text, timedOut: timedOut, signalled: process.terminationReason == .uncaughtSignal)
    }
}

/// Why a report could not be written.
public enum ReportError: Error, Hashable, Sendable, CustomStringConvertible {
    case noBrowser
    case printFailed(String)
    case cannotWrite(String, String)
    case unknownFormat(String)
    case noEmail(String)
    case mailFailed(String)

    public var description: String {
        switch self {
        case .noBrowser:
            "a PDF needs Chromium, which is not installed (Debian: apt-get install chromium, or scripts/install-deps); "
                + "--out FILE.html works without it"
        case .printFailed(let why): "Chromium could not print the report: \(why)"
        case .cannotWrite(let path, let why): "cannot write \(path): \(why)"
        case .unknownFormat(let path): "cannot tell the format of \(path): name it FILE.html or FILE.pdf"
        case .noEmail(let contact): "the contact \(contact) has no email address"
        case .mailFailed(let why): why
        }
    }
}
