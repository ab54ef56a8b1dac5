import Foundation

/// A care report a person shared with a household device (protocol section 20): sent as
/// ReportChunk messages, each under the frame limit, and acknowledged with ReportReceived
/// once the device has kept it whole.
public struct SharedReport: Sendable, Hashable {
    /// The revision of the `reportShared` change: names the report.
    public var revision: Int
    /// The name to save it under, without a directory.
    public var fileName: String
    /// `application/pdf` or `application/xhtml+xml`.
    public var mediaType: String
    public var days: ClosedRange<CalendarDay>
    public var content: [UInt8]

    /// The largest report a household device accepts.
    public static let maximumBytes = 32 << 20
    /// The media types a report comes in.
    public static let mediaTypes = ["application/pdf", "application/xhtml+xml"]

    public init(revision: Int, fileName: String, mediaType: String, days: ClosedRange<CalendarDay>, content: [UInt8]) {
        self.revision = revision
        self.fileName = fileName
        self.mediaType = mediaType
        self.days = days
        self.content = content
    }
}
