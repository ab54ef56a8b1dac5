import Foundation

/// A hybrid logical clock reading: wall-clock milliseconds, a counter for events in the
/// same millisecond, and the node that made it as the final tie-break.
///
/// Two changes to the same event are decided by their timestamps: the greater one wins,
/// on every node, whatever order the changes arrive in.
public struct HybridTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var physical: Int64
    public var logical: UInt32
    public var node: String

    public init(physical: Int64, logical: UInt32 = 0, node: String) {
        self.physical = physical
        self.logical = logical
        self.node = node
    }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.physical, lhs.logical, lhs.node) < (rhs.physical, rhs.logical, rhs.node)
    }

    /// The reading a clock at `node` gives at `now`, after it has seen `latest`:
    /// later than `latest` even if the wall clock is behind it.
    public static func next(after latest: HybridTimestamp?, now: Date, node: String) -> HybridTimestamp {
        let wall = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        guard let latest, latest.physical >= wall else { return HybridTimestamp(physical: wall, node: node) }
        return HybridTimestamp(physical: latest.physical, logical: latest.logical + 1, node: node)
    }

    /// `physical.logical@node`.
    public var description: String { "\(physical).\(logical)@\(node)" }
}
