import NIOPosix
import NodeIdentity

extension PairingProof {
    /// Derives the proof on NIO's blocking-work thread pool: scrypt takes a CPU for tens or
    /// hundreds of milliseconds, which would stall the tasks sharing the concurrency pool
    /// (a connection's first frame among them).
    static func derived(code: PairingCode, companionFingerprint: String, primaryFingerprint: String) async throws -> PairingProof {
        try await NIOThreadPool.singleton.runIfActive {
            try PairingProof(code: code, companionFingerprint: companionFingerprint, primaryFingerprint: primaryFingerprint)
        }
    }
}
