import CarePlan
import Crypto
import Foundation

extension SharedReport {
    /// SHA-256 of the content, lowercase hex.
    public var sha256: String {
        SHA256.hash(data: content).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The report as envelopes, in order, each frame at most `maximumFrameBytes` (the
    /// description repeated in each takes its room from the data).
    public func chunks(maximumFrameBytes: Int) -> [Caresync_V1_Envelope] {
        let digest = sha256
        let description = Caresync_V1_ReportChunk.with {
            $0.reportRevision = UInt64(revision)
            $0.fileName = fileName
            $0.mediaType = mediaType
            $0.rangeFrom = days.lowerBound.description
            $0.rangeThrough = days.upperBound.description
            $0.totalBytes = UInt64(content.count)
            $0.sha256 = digest
        }
        // The description, the offset and the data's length prefix, with room to spare.
        let overhead = ((try? description.serializedBytes() as [UInt8])?.count ?? 0) + 64
        let size = max(1, min(Self.chunkBytes, maximumFrameBytes - overhead))
        return stride(from: 0, to: max(content.count, 1), by: size).map { offset in
            var chunk = description
            chunk.offset = UInt64(offset)
            chunk.data = Data(content[offset..<min(content.count, offset + size)])
            return .with { $0.reportChunk = chunk }
        }
    }

    /// The most data one chunk carries, so that a report never holds up other frames long.
    static let chunkBytes = 256 << 10
}

/// A report arriving in chunks: each must continue the one before, and the whole must
/// match its digest.
public struct ReportAssembly: Sendable {
    private var report: SharedReport?
    private var total = 0
    private var digest = ""

    public init() {}

    /// Adds a chunk; returns the report once it is whole.
    ///
    /// - Throws: `MALFORMED_FRAME` for a chunk that does not continue the report under way
    ///   (another report, another description, a gap or an overlap), a report above
    ///   ``SharedReport/maximumBytes`` or of an unknown media type, a file name with a
    ///   directory, or a whole whose SHA-256 differs from the one announced.
    public mutating func add(_ chunk: Caresync_V1_ReportChunk) throws(ProtocolError) -> SharedReport? {
        if report == nil || chunk.offset == 0 { try start(chunk) }
        guard var report, chunk.reportRevision == UInt64(report.revision), chunk.fileName == report.fileName,
              chunk.mediaType == report.mediaType, Int(exactly: chunk.totalBytes) == total, chunk.sha256 == digest
        else { throw .malformed("a report chunk that describes another report than the one under way") }
        guard chunk.offset == UInt64(report.content.count), report.content.count + chunk.data.count <= total else {
            throw .malformed("report \(report.revision): a chunk at byte \(chunk.offset) of \(chunk.data.count) bytes, "
                + "after \(report.content.count) of \(total) bytes")
        }
        report.content += chunk.data
        guard report.content.count == total else {
            self.report = report
            return nil
        }
        self.report = nil
        guard report.sha256 == digest else { throw .malformed("report \(report.revision) does not match its SHA-256") }
        return report
    }

    /// Begins the report a first chunk describes.
    private mutating func start(_ chunk: Caresync_V1_ReportChunk) throws(ProtocolError) {
        guard chunk.offset == 0 else { throw .malformed("a report chunk at byte \(chunk.offset) before its first") }
        guard let revision = Int(exactly: chunk.reportRevision), revision > 0 else {
            throw .malformed("report revision \(chunk.reportRevision) is not a revision")
        }
        guard let total = Int(exactly: chunk.totalBytes), total <= SharedReport.maximumBytes else {
            throw .malformed("a report of \(chunk.totalBytes) bytes: at most \(SharedReport.maximumBytes) are accepted")
        }
        guard SharedReport.mediaTypes.contains(chunk.mediaType) else {
            throw .malformed("a report of media type \"\(chunk.mediaType)\": \(SharedReport.mediaTypes.joined(separator: " or ")) expected")
        }
        let name = chunk.fileName
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", !name.hasPrefix(".") else {
            throw .malformed("report file name \"\(name)\" is not a plain file name")
        }
        guard chunk.sha256.count == 64, chunk.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw .malformed("report SHA-256 \"\(chunk.sha256)\" is not 64 lowercase hex digits")
        }
        let days = try ClosedRange<CalendarDay>(wireFrom: chunk.rangeFrom, through: chunk.rangeThrough)
        report = SharedReport(revision: revision, fileName: name, mediaType: chunk.mediaType, days: days, content: [])
        report?.content.reserveCapacity(total)
        self.total = total
        digest = chunk.sha256
    }
}

extension ClosedRange<CalendarDay> {
    /// A range of days as the wire gives it.
    ///
    /// - Throws: `MALFORMED_FRAME` for a day that is not `YYYY-MM-DD`, or a range that ends
    ///   before it begins.
    init(wireFrom from: String, through: String) throws(ProtocolError) {
        guard let first = CalendarDay(from), let last = CalendarDay(through) else {
            throw .malformed("range \"\(from)\" – \"\(through)\" is not two days YYYY-MM-DD")
        }
        guard first <= last else { throw .malformed("range \(first) – \(last) ends before it begins") }
        self = first...last
    }
}

extension Caresync_V1_Envelope {
    /// The household device has kept report `revision` whole.
    public static func reportReceived(_ revision: Int) -> Self {
        .with { $0.reportReceived = .with { $0.reportRevision = UInt64(revision) } }
    }
}
