import CarePlan
import Crypto
import Foundation

/// What module CareBackup adds to a step (a plain value of module CarePlan): making the image.
extension StandbyStep {
    /// The image the step makes of `base` (the bytes the copy holds), checked against the
    /// digests; why not, otherwise.
    public func apply(to base: [UInt8], baseSHA256 held: [UInt8]) throws(StandbyError) -> [UInt8] {
        guard held == baseSHA256 else { throw .notItsBase(revision: revision) }
        guard pageSize >= 512, pageSize <= 65_536, pageSize.nonzeroBitCount == 1 else { throw .malformed("a page size of \(pageSize)") }
        guard pageCount >= 1, pageCount <= Int(Int32.max) / pageSize else { throw .malformed("\(pageCount) pages") }
        var image = Array(base.prefix(pageCount * pageSize))
        if image.count < pageCount * pageSize { image += [UInt8](repeating: 0, count: pageCount * pageSize - image.count) }
        for page in pages {
            guard (1...pageCount).contains(page.number), page.data.count == pageSize else {
                throw .malformed("page \(page.number) of \(page.data.count) bytes in an image of \(pageCount) pages of \(pageSize)")
            }
            let start = (page.number - 1) * pageSize
            image.replaceSubrange(start..<start + pageSize, with: page.data)
        }
        guard Array(SHA256.hash(data: image)) == sha256 else { throw .digestMismatch(revision: revision) }
        return image
    }
}

/// Why a standby copy could not take a step, be read, or be exported.
public enum StandbyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The step applies to another image than the one the copy holds.
    case notItsBase(revision: Int)
    /// The step's pages do not make the image its digest names.
    case digestMismatch(revision: Int)
    /// The step cannot be right (a page outside the image, a page size SQLite never uses).
    case malformed(String)
    /// The copy's files were altered, or a file could not be read or written.
    case damaged(path: String, reason: String)
    /// The copy holds nothing yet.
    case empty(path: String)

    public var description: String {
        switch self {
        case .notItsBase(let revision): "the step to revision \(revision) applies to another image than the copy holds"
        case .digestMismatch(let revision): "the step to revision \(revision) does not make the image its digest names"
        case .malformed(let what): "a malformed standby step: \(what)"
        case .damaged(let path, let reason): "the standby copy in \(path) cannot be used: \(reason)"
        case .empty(let path): "the standby copy in \(path) holds nothing yet: it fills once the primary connects"
        }
    }
}
