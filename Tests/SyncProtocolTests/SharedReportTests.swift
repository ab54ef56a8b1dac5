import CarePlan
import Foundation
import SwiftProtobuf
import SyncProtocol
import Testing

/// A shared report on the wire (protocol section 20): chunks under the frame limit that
/// give back exactly the report, and every way a chunk can fail to continue it refused.
struct SharedReportTests {
    static let week = CalendarDay("2026-11-16")!...CalendarDay("2026-11-22")!

    static func report(bytes: Int, revision: Int = 42) -> SharedReport {
        SharedReport(
            revision: revision, fileName: "care-report-2026-11-16-2026-11-22.pdf", mediaType: "application/pdf", days: week,
            content: (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    /// The chunks' bodies, through their wire encoding.
    static func chunks(of report: SharedReport, frame: Int) throws -> [Caresync_V1_ReportChunk] {
        try report.chunks(maximumFrameBytes: frame).map { envelope in
            let payload = try Frame.encode(envelope)
            #expect(payload.readableBytes - 4 <= frame, "a frame of \(payload.readableBytes - 4) bytes above \(frame)")
            return try Frame.decode(payload.getSlice(at: 4, length: payload.readableBytes - 4)!).reportChunk
        }
    }

    @Test(arguments: [(0, 1 << 20), (1, 1 << 20), (600_000, 1 << 20), (700_000, 16_384), (1 << 20, 1 << 20)])
    func chunksUnderTheFrameLimitGiveBackTheReport(bytes: Int, frame: Int) throws {
        let report = Self.report(bytes: bytes)
        let chunks = try Self.chunks(of: report, frame: frame)
        #expect(chunks.allSatisfy { $0.data.count <= 256 << 10 })
        #expect(chunks.dropLast().allSatisfy { $0.data.count == chunks[0].data.count })
        #expect(chunks.count == max(1, (bytes + chunks[0].data.count - 1) / max(1, chunks[0].data.count)))
        var assembly = ReportAssembly()
        var whole: [SharedReport] = []
        for chunk in chunks { if let done = try assembly.add(chunk) { whole.append(done) } }
        #expect(whole == [report])
    }

    @Test func aChunkThatDoesNotContinueTheReportIsRefused() throws {
        let chunks = try Self.chunks(of: Self.report(bytes: 600_000), frame: 1 << 20)
        #expect(chunks.count == 3)
        var gap = ReportAssembly()
        _ = try gap.add(chunks[0])
        #expect(throws: ProtocolError.self) { try gap.add(chunks[2]) }
        var other = ReportAssembly()
        _ = try other.add(chunks[0])
        var foreign = chunks[1]
        foreign.reportRevision = 43
        #expect(throws: ProtocolError.malformed("a report chunk that describes another report than the one under way")) {
            try other.add(foreign)
        }
        var lateStart = ReportAssembly()
        #expect(throws: ProtocolError.malformed("a report chunk at byte \(chunks[1].offset) before its first")) { try lateStart.add(chunks[1]) }
        // A first chunk starts the report over: a primary sending it again after a reconnection.
        var again = ReportAssembly()
        _ = try again.add(chunks[0])
        _ = try again.add(chunks[0])
        _ = try again.add(chunks[1])
        #expect(try again.add(chunks[2]) == Self.report(bytes: 600_000))
    }

    @Test func aReportThatDoesNotMatchItsDigestOrDescriptionIsRefused() throws {
        let chunk = try #require(try Self.chunks(of: Self.report(bytes: 1_000), frame: 1 << 20).first)
        func refusal(_ change: (inout Caresync_V1_ReportChunk) -> Void) -> String? {
            var changed = chunk
            change(&changed)
            var assembly = ReportAssembly()
            do {
                _ = try assembly.add(changed)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal { $0.data[0] ^= 1 } == "report 42 does not match its SHA-256")
        #expect(refusal { $0.totalBytes = UInt64(SharedReport.maximumBytes + 1) } == "a report of 33554433 bytes: at most 33554432 are accepted")
        #expect(refusal { $0.mediaType = "text/html" } == "a report of media type \"text/html\": application/pdf or application/xhtml+xml expected")
        #expect(refusal { $0.fileName = "../identity.pem" } == "report file name \"../identity.pem\" is not a plain file name")
        #expect(refusal { $0.fileName = ".hidden" } == "report file name \".hidden\" is not a plain file name")
        #expect(refusal { $0.sha256 = "ABC" } == "report SHA-256 \"ABC\" is not 64 lowercase hex digits")
        #expect(refusal { $0.rangeThrough = "2026-11-01" } == "range 2026-11-16 – 2026-11-01 ends before it begins")
        #expect(refusal { $0.reportRevision = 0 } == "report revision 0 is not a revision")
        #expect(refusal { $0.totalBytes = 999 } == "report 42: a chunk at byte 0 of 1000 bytes, after 0 of 999 bytes")
        #expect(refusal { _ in } == nil)
    }

    /// The report-chunk vector is a whole report, and the history vector's entries read as shares.
    @Test func theVectorsReadAsAReportAndAsShares() throws {
        let vector = try #require(VectorTests.vectors.valid.first { $0.name == "report-chunk" })
        let envelope = try Self.envelope(vector.hex)
        var assembly = ReportAssembly()
        let report = try #require(try assembly.add(envelope.reportChunk))
        #expect(report.revision == 17 && report.days == Self.week && report.mediaType == "application/xhtml+xml")
        #expect(String(decoding: report.content, as: UTF8.self).contains("<h1>Care report</h1>"))

        let history = try #require(VectorTests.vectors.valid.first { $0.name == "history-page-report-shared" })
        let page = try HistoryPage(wire: try Self.envelope(history.hex).historyPage)
        #expect(page.entries.map(\.kind) == ["reportShared", "reportShared"])
        #expect(page.entries.map(\.range) == [Self.week, Self.week])
        #expect(page.entries[0].contactID == "dr-ruiz" && page.entries[0].sharedTo == "maria.ruiz@example.org")
        #expect(page.entries[1].pairedDevice == String(repeating: "44", count: 32) && page.entries[1].sharedTo == "Hall tablet")
    }

    /// The one frame a vector's hex holds.
    static func envelope(_ hex: String) throws -> Caresync_V1_Envelope {
        let bytes = try #require(Array(hex: hex))
        return try Frame.decode(try #require(try VectorTests.split(bytes).first))
    }
}
