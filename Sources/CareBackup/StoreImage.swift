import CarePlan
import CarePlanStore
import Foundation
import Crypto

/// A store's database at one revision of its change log, page for page, with each page's
/// SHA-256: what a primary sends its standby copies from (``CarePlanStore/pageImage()``).
public struct StoreImage: Sendable {
    public let revision: Int
    public let pageSize: Int
    public let bytes: [UInt8]
    /// Each page's SHA-256, one after the other (32 bytes a page).
    public let pageDigests: [UInt8]
    /// The whole image's SHA-256.
    public let sha256: [UInt8]

    /// The image of `bytes`, whole pages of `pageSize`.
    public init(revision: Int, pageSize: Int, bytes: [UInt8]) {
        self.revision = revision
        self.pageSize = pageSize
        self.bytes = bytes
        var digests: [UInt8] = []
        digests.reserveCapacity(bytes.count / max(pageSize, 1) * 32)
        bytes.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: pageSize) {
                digests += SHA256.hash(data: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[start..<min(start + pageSize, all.count)])))
            }
        }
        pageDigests = digests
        sha256 = Array(SHA256.hash(data: bytes))
    }

    /// A consistent image of `store` as it is now.
    public static func make(of store: CarePlanStore) async throws(CarePlanStoreError) -> StoreImage {
        let image = try await store.pageImage()
        return StoreImage(revision: image.revision, pageSize: image.pageSize, bytes: image.bytes)
    }

    public var pageCount: Int { bytes.count / pageSize }

    /// The step that brings a copy holding `held` to this image, with `identity` if its
    /// digest is not the one held; `nil` when the copy has both already.
    public func step(from held: StandbyHeld, identity: IdentityFiles?, committedAt: Date?) -> StandbyStep? {
        let newIdentity = identity.flatMap { $0.digest == held.identityDigest ? nil : $0 }
        guard held.sha256 != sha256 || newIdentity != nil else { return nil }
        let samePages = held.pageSize == pageSize ? held.pageDigests : []
        var pages: [StandbyStep.Page] = []
        for index in 0..<pageCount {
            let range = index * 32..<(index + 1) * 32
            if range.upperBound <= samePages.count, samePages[range] == pageDigests[range] { continue }
            pages.append(StandbyStep.Page(number: index + 1, data: Array(bytes[index * pageSize..<(index + 1) * pageSize])))
        }
        return StandbyStep(
            baseSHA256: held.sha256, revision: revision, pageSize: pageSize, pageCount: pageCount, pages: pages, sha256: sha256,
            committedAt: committedAt, identity: newIdentity)
    }
}

/// What module CareBackup adds to what a copy holds (a plain value of module CarePlan).
extension StandbyHeld {
    /// What a copy holds once it has `image` (and identity files of `identityDigest`).
    init(_ image: StoreImage, identityDigest: [UInt8]) {
        self.init(
            revision: image.revision, pageSize: image.pageSize, pageDigests: image.pageDigests, sha256: image.sha256,
            identityDigest: identityDigest)
    }
}
