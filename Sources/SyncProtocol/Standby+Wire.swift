import CarePlan
import Foundation

// A standby copy's messages (protocol section 23): what it holds (StandbyHeld), the steps
// that bring it up to date (StandbyPages, a step in pieces) and what it has applied
// (StandbyApplied). The values they carry, `StandbyHeld` and `StandbyStep`, are plain values
// of module CarePlan: module CareBackup, which makes and applies them, depends on the store,
// and this module must not; so the values moved down rather than the protocol up.

extension StandbyHeld {
    /// What a copy holds, as StandbyHeld says it.
    public var wire: Caresync_V1_StandbyHeld {
        .with {
            $0.revision = UInt64(revision)
            $0.pageSize = UInt32(pageSize)
            $0.pageDigests = Data(pageDigests)
            $0.imageSha256 = Data(sha256)
            $0.identitySha256 = Data(identityDigest)
        }
    }

    /// What a copy says it holds, checked: digests of 32 bytes, a page size for each.
    ///
    /// - Throws: `MALFORMED_FRAME` otherwise.
    public init(wire: Caresync_V1_StandbyHeld) throws(ProtocolError) {
        guard wire.pageDigests.count % 32 == 0, [0, 32].contains(wire.imageSha256.count), [0, 32].contains(wire.identitySha256.count),
              wire.pageDigests.isEmpty || wire.pageSize > 0
        else { throw .malformed("a standby_held with digests that are not 32 bytes each") }
        self.init(
            revision: Int(clamping: wire.revision), pageSize: Int(wire.pageSize), pageDigests: Array(wire.pageDigests),
            sha256: Array(wire.imageSha256), identityDigest: Array(wire.identitySha256))
    }
}

extension StandbyStep {
    /// The step as StandbyPages messages, each within half of `maximumFrameBytes` (at least
    /// one page each), the identity in the first, `last` set on the last (protocol section 23).
    public func pieces(maximumFrameBytes: Int) -> [Caresync_V1_Envelope] {
        let budget = maximumFrameBytes / 2
        var groups: [[Page]] = [[]]
        var size = identity?.files.values.reduce(0) { $0 + $1.count + 64 } ?? 0
        for page in pages {
            if size + page.data.count + 16 > budget, !groups[groups.count - 1].isEmpty {
                groups.append([])
                size = 0
            }
            groups[groups.count - 1].append(page)
            size += page.data.count + 16
        }
        return groups.enumerated().map { index, group in
            .with {
                $0.standbyPages = .with {
                    $0.baseSha256 = Data(baseSHA256)
                    $0.revision = UInt64(revision)
                    $0.pageSize = UInt32(pageSize)
                    $0.pageCount = UInt32(pageCount)
                    $0.imageSha256 = Data(sha256)
                    $0.committedAtMs = committedAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
                    $0.pages = group.map { page in .with { $0.number = UInt32(page.number); $0.data = Data(page.data) } }
                    if index == 0, let identity {
                        $0.identity = identity.names.map { name in .with { $0.name = name; $0.content = Data(identity.files[name]!) } }
                    }
                    $0.last = index == groups.count - 1
                }
            }
        }
    }
}

/// Puts a step together from its StandbyPages pieces, checking that each continues the
/// step under way (protocol section 23).
public struct StandbyAssembly: Sendable {
    private var partial: StandbyStep?

    public init() {}

    /// The whole step once `piece` is its last; `nil` while more are to come.
    ///
    /// - Throws: `MALFORMED_FRAME` for a piece that does not continue the step under way, or
    ///   an identity file whose name is not a plain file name.
    public mutating func add(_ piece: Caresync_V1_StandbyPages) throws(ProtocolError) -> StandbyStep? {
        let pages = piece.pages.map { StandbyStep.Page(number: Int($0.number), data: Array($0.data)) }
        if var step = partial {
            guard piece.identity.isEmpty, Array(piece.baseSha256) == step.baseSHA256, Int(clamping: piece.revision) == step.revision,
                  Int(piece.pageSize) == step.pageSize, Int(piece.pageCount) == step.pageCount, Array(piece.imageSha256) == step.sha256
            else { throw .malformed("a standby_pages that does not continue the step under way") }
            step.pages += pages
            partial = step
        } else {
            var files: [String: [UInt8]] = [:]
            for file in piece.identity {
                guard !file.name.isEmpty, !file.name.contains("/"), !file.name.hasPrefix("."), files[file.name] == nil else {
                    throw .malformed("a standby identity file named \"\(file.name)\"")
                }
                files[file.name] = Array(file.content)
            }
            partial = StandbyStep(
                baseSHA256: Array(piece.baseSha256), revision: Int(clamping: piece.revision), pageSize: Int(piece.pageSize),
                pageCount: Int(piece.pageCount), pages: pages, sha256: Array(piece.imageSha256),
                committedAt: piece.committedAtMs == 0 ? nil : Date(timeIntervalSince1970: Double(piece.committedAtMs) / 1000),
                identity: piece.identity.isEmpty ? nil : IdentityFiles(files))
        }
        guard piece.last else { return nil }
        defer { partial = nil }
        return partial
    }
}

extension Caresync_V1_Envelope {
    /// What a household device's standby copy holds, its first message about the copy.
    public static func standbyHeld(_ held: StandbyHeld) -> Self { .with { $0.standbyHeld = held.wire } }

    /// The step to `revision`, whose image has SHA-256 `sha256`, is on the device's disk.
    public static func standbyApplied(revision: Int, sha256: [UInt8]) -> Self {
        .with { $0.standbyApplied = .with { $0.revision = UInt64(revision); $0.imageSha256 = Data(sha256) } }
    }
}
