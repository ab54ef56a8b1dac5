import CarePlan
import Foundation
import PrivateFiles
import SyncProtocol

extension CompanionNode {
    /// Keeps a report shared with this household device in its reports directory (0700),
    /// as a file only its owner may read, replacing one of the same name, synced before the
    /// primary is told (protocol section 20).
    ///
    /// - Throws: ``PrivateFileError`` when it cannot be written: the primary is then not
    ///   told, and sends it again on the next connection.
    func keep(_ report: SharedReport) throws -> ReceivedReport {
        guard let directory = configuration.reportsDirectory else {
            throw ProtocolError(.internal, "a report arrived, and this device keeps none")
        }
        try PrivateFiles.makeDirectory(directory, own: true)
        let path = directory + "/" + report.fileName
        try PrivateFiles.replace(path, contents: report.content)
        configuration.logger.info("kept a shared report", metadata: [
            "revision": "\(report.revision)", "path": "\(path)", "bytes": "\(report.content.count)",
        ])
        return ReceivedReport(
            revision: report.revision, path: path, mediaType: report.mediaType, days: report.days, bytes: report.content.count,
            sha256: report.sha256)
    }
}
