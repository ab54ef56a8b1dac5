import CarePlan
import Foundation
import Synchronization

/// A node's hybrid logical clock: every reading is later than the last one and than any
/// reading the node has observed from others.
final class HybridClock: Sendable {
    private let node: String
    private let latest = Mutex<HybridTimestamp?>(nil)

    init(node: String) {
        self.node = node
    }

    /// A new reading at wall time `now`.
    func tick(now: Date) -> HybridTimestamp {
        latest.withLock { latest in
            let reading = HybridTimestamp.next(after: latest, now: now, node: node)
            latest = reading
            return reading
        }
    }

    /// Merges another node's reading, so later ticks come after it; returns the reading.
    @discardableResult
    func observe(_ reading: HybridTimestamp) -> HybridTimestamp {
        latest.withLock { latest in
            if latest.map({ $0 < reading }) ?? true { latest = reading }
        }
        return reading
    }
}
