import CareCore
import CarePlanStore
import Foundation
import NodeIdentity
import SyncNode

/// Pairs `companion` with the running primary of `store` through the real exchange: a
/// code opened in the store, redeemed by the companion over TLS.
func pair(_ companion: CompanionNode, through store: CarePlanStore) async throws {
    let code = PairingCode.random()
    try await CareCore(store: store).access.openPairingCode(code.characters, role: companion.configuration.role, mayRecord: true, expiresAt: Date().addingTimeInterval(600))
    _ = try await companion.pair(code: code)
}

/// Pairs `count` companions, made by `companion(index)`, with the running primary of
/// `store`, at most `width` at a time; returns how long each pairing took. Starts no
/// pairing after `deadline`, and fails if one is still to start then.
func pairAll(
    _ count: Int, width: Int, through store: CarePlanStore, until deadline: ContinuousClock.Instant,
    _ companion: @escaping @Sendable (Int) async throws -> CompanionNode
) async throws -> Samples {
    try await withThrowingTaskGroup(of: Double.self) { group in
        let clock = ContinuousClock()
        var started = 0
        func startNext() throws {
            guard clock.now < deadline else {
                throw BenchmarkFailure("\(started) of \(count) companions paired when the deadline passed (--max-seconds)")
            }
            let index = started
            started += 1
            group.addTask {
                let node = try await companion(index)
                return try await clock.measure { try await pair(node, through: store) }.inSeconds
            }
        }
        while started < min(width, count) { try startNext() }
        var samples = Samples()
        while let seconds = try await group.next() {
            samples.append(seconds)
            if started < count { try startNext() }
        }
        return samples
    }
}
