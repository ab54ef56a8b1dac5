import Foundation
import Testing

/// The sandbox's one Avahi daemon (`scripts/mdns-sandbox`), and who may use it when.
enum MDNSSandbox {
    static let script = CareSyncCommand.repository.appendingPathComponent("scripts/mdns-sandbox")
    static let isRunning = (try? CareSyncCommand.runBlocking(executable: script, ["status"]))?.status == 0
}

/// How a test uses the daemon. Every test of ``MDNSTests`` shares it, beside the others
/// and the rest of the suite; one marked `.daemon(alone: true)` has it to itself, for a test
/// that restarts or stops it, or that needs its primary to be the only one advertised.
struct DaemonUse: TestTrait, SuiteTrait, TestScoping {
    let alone: Bool
    var isRecursive: Bool { true }

    private static let access = DaemonAccess()

    /// Each test once (not the suites): shared, unless the test also says alone.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> DaemonUse? {
        guard !test.isSuite, testCase != nil else { return nil }
        let wantsAlone = test.traits.contains { ($0 as? DaemonUse)?.alone == true }
        return alone == wantsAlone ? self : nil
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.access.enter(alone: alone)
        do {
            try await function()
        } catch {
            await Self.access.leave(alone: alone)
            throw error
        }
        await Self.access.leave(alone: alone)
    }
}

extension Trait where Self == DaemonUse {
    /// The test's use of the mDNS sandbox's daemon: shared, or alone.
    static func daemon(alone: Bool) -> Self { DaemonUse(alone: alone) }
}

/// A readers–writer lock, first come first served: a test waiting to have the daemon alone
/// holds back those that come after it, so that it waits only for those already in.
private actor DaemonAccess {
    private var sharing = 0
    private var held = false
    private var queue: [(alone: Bool, admit: CheckedContinuation<Void, Never>)] = []

    func enter(alone: Bool) async {
        if queue.isEmpty && mayEnter(alone: alone) {
            take(alone: alone)
            return
        }
        await withCheckedContinuation { queue.append((alone, $0)) }
    }

    func leave(alone: Bool) {
        if alone { held = false } else { sharing -= 1 }
        while let next = queue.first, mayEnter(alone: next.alone) {
            queue.removeFirst()
            take(alone: next.alone)
            next.admit.resume()
        }
    }

    private func mayEnter(alone: Bool) -> Bool {
        alone ? !held && sharing == 0 : !held
    }

    private func take(alone: Bool) {
        if alone { held = true } else { sharing += 1 }
    }
}
