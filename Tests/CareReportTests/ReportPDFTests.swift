import CareReport
import ChildProcess
import Foundation
import Testing
import Waiting

/// The report printed by headless Chromium and looked at: its text through `pdftotext`, its
/// pages through `pdftoppm`, where the chart's series must show in their colours.
struct ReportPDFTests {
    /// Runs a poppler tool to its end on a thread of its own; its standard output.
    static func poppler(_ tool: String, _ arguments: [String]) async throws -> Data {
        try await blocking { () throws -> Data in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            try process.runUnblocked()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
            return data
        }
    }

    /// A page as pixels (`pdftoppm`'s binary PPM: `P6 width height 255`, then RGB).
    struct Page {
        var width = 0, height = 0
        var pixels: [UInt8] = []

        init(ppm data: Data) throws {
            let bytes = [UInt8](data)
            var fields: [Int] = []
            var index = 2  // after "P6"
            while fields.count < 3 {
                while bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
                var number = 0
                while bytes[index] >= 0x30, bytes[index] <= 0x39 { number = number * 10 + Int(bytes[index] - 0x30); index += 1 }
                fields.append(number)
            }
            (width, height) = (fields[0], fields[1])
            pixels = Array(bytes[(index + 1)...])
            guard pixels.count == width * height * 3 else { throw CocoaError(.fileReadCorruptFile) }
        }

        /// Pixels within `tolerance` of `#RRGGBB` in every channel.
        func count(_ color: String, tolerance: Int = 12) -> Int {
            let hex = Int(color.dropFirst(), radix: 16)!
            let target = [(hex >> 16) & 0xFF, (hex >> 8) & 0xFF, hex & 0xFF]
            return stride(from: 0, to: pixels.count, by: 3).count { offset in
                (0..<3).allSatisfy { abs(Int(pixels[offset + $0]) - target[$0]) <= tolerance }
            }
        }
    }

    @Test(arguments: CareReport.Paper.allCases)
    func thePrintedReportReadsAndShowsItsChart(paper: CareReport.Paper) async throws {
        let fixture = try await ReportFixture()
        let report = try await fixture.report(paper: paper, comments: ["Pain was worse on the days the second dose was missed."])
        let pdf = fixture.directory.appendingPathComponent("report.pdf")
        try await ReportPrinter().pdf(of: report.html, to: pdf)

        let info = String(decoding: try await Self.poppler("pdfinfo", [pdf.path]), as: UTF8.self)
        #expect(info.contains(paper == .a4 ? "(A4)" : "(letter)"), "\(info)")
        // Lines wrap where the paper says: the words are compared, not the line breaks.
        let text = String(decoding: try await Self.poppler("pdftotext", [pdf.path, "-"]), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for expected in ["Care report: ZombieCare", "Pain: outside the usual range", "Z-Cure 50 mg: below target",
                         "Seen together, not shown to be cause and effect.", "Maria Ruiz",
                         "Pain was worse on the days the second dose was missed."] {
            #expect(text.contains(expected), "\(expected)")
        }

        // The chart's bars on the pages, in their series' colours (read from the HTML).
        let colors = try ReportHTMLTests.Elements(report.html).named("rect").filter { $0.attributes["class"] == "bar" }
            .reduce(into: [String: String]()) { $0[$1.attributes["data-series"]!] = $1.attributes["fill"]! }
        let prefix = fixture.directory.appendingPathComponent("page").path
        _ = try await Self.poppler("pdftoppm", ["-r", "60", pdf.path, prefix])
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter { $0.hasSuffix(".ppm") }.sorted()
        #expect(!files.isEmpty)
        let pages = try files.map { try Page(ppm: Data(contentsOf: fixture.directory.appendingPathComponent($0))) }
        for series in ["pain", "z-cure", "heart-rate", "steps"] {
            let color = try #require(colors[series])
            #expect(pages.map { $0.count(color) }.reduce(0, +) > 100, "\(series) \(color)")
        }
        // A series with nothing recorded draws nothing.
        #expect(colors["mood"] == nil)

        // What the README shows: the first page, rendered by this test.
        try FileManager.default.createDirectory(at: ReportFixture.renders, withIntermediateDirectories: true)
        _ = try await Self.poppler("pdftoppm", [
            "-r", "80", "-png", "-f", "1", "-l", "2", pdf.path, ReportFixture.renders.appendingPathComponent("report-\(paper.rawValue)").path,
        ])
    }

    @Test func withoutChromiumTheErrorSaysWhatToInstall() async throws {
        let printer = ReportPrinter(environment: ["PATH": "/nonexistent"])
        #expect(printer.browser == nil)
        await #expect(throws: ReportError.noBrowser) {
            try await printer.pdf(of: "<html/>", to: URL(fileURLWithPath: "/tmp/never.pdf"))
        }
        #expect(ReportError.noBrowser.description.contains("apt-get install chromium"))
    }
}
