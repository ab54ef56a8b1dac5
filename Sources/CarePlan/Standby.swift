import Foundation

// The values a primary and a household device's standby copy exchange (protocol section 23).
// They are plain values here, below both module CareBackup (which makes, applies and keeps
// them) and module SyncProtocol (which maps them to and from their messages), so that the
// protocol needs nothing of the store to carry them.

/// What a standby copy holds, as it tells its primary at each connection: the revision, each
/// page's digest, the whole image's and the identity's. An empty copy holds nothing.
public struct StandbyHeld: Sendable, Hashable {
    public var revision: Int
    public var pageSize: Int
    public var pageDigests: [UInt8]
    public var sha256: [UInt8]
    public var identityDigest: [UInt8]

    public init(revision: Int = 0, pageSize: Int = 0, pageDigests: [UInt8] = [], sha256: [UInt8] = [], identityDigest: [UInt8] = []) {
        self.revision = revision
        self.pageSize = pageSize
        self.pageDigests = pageDigests
        self.sha256 = sha256
        self.identityDigest = identityDigest
    }
}

/// What a primary sends a standby copy to bring it to a newer image: the pages that differ
/// from the image the copy holds (`baseSHA256`), the new image's size and digest, and the
/// primary's identity files when the copy's differ.
public struct StandbyStep: Sendable, Hashable {
    /// A page of the image, numbered from 1 as SQLite numbers them.
    public struct Page: Sendable, Hashable {
        public var number: Int
        public var data: [UInt8]

        public init(number: Int, data: [UInt8]) {
            self.number = number
            self.data = data
        }
    }

    /// The SHA-256 of the image the pages apply to; empty for a copy that holds none.
    public var baseSHA256: [UInt8]
    public var revision: Int
    public var pageSize: Int
    public var pageCount: Int
    public var pages: [Page]
    /// The SHA-256 of the image the step makes.
    public var sha256: [UInt8]
    /// When the oldest change the step brings was committed, on the primary's clock (`nil`:
    /// unknown, from before the primary started), for the copy's lag.
    public var committedAt: Date?
    /// The primary's identity files, when the copy does not hold these.
    public var identity: IdentityFiles?

    public init(
        baseSHA256: [UInt8], revision: Int, pageSize: Int, pageCount: Int, pages: [Page], sha256: [UInt8], committedAt: Date?,
        identity: IdentityFiles?
    ) {
        self.baseSHA256 = baseSHA256
        self.revision = revision
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.pages = pages
        self.sha256 = sha256
        self.committedAt = committedAt
        self.identity = identity
    }
}

/// The files of a primary's identity directory that a backup or a standby copy takes: its key
/// and certificates and its health record sign-in, not its locks, launches in progress or a
/// crash's leftovers. (Module CareBackup reads them from a directory and digests them.)
public struct IdentityFiles: Sendable, Hashable {
    /// Contents by file name.
    public let files: [String: [UInt8]]

    public init(_ files: [String: [UInt8]]) {
        self.files = files
    }

    /// The names in order.
    public var names: [String] { files.keys.sorted() }
}
