import ChildProcess
import Foundation
import Synchronization
import TestSupport
import Testing

struct ChildProcessTests {
    /// The signals a process blocks and ignores, from its /proc status.
    static func signalMasks(of process: Process, reading output: Pipe) -> [String: String] {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 && parts[0].hasPrefix("Sig") ? (parts[0], parts[1]) : nil
        })
    }

    /// Started from a task (a Dispatch thread, which blocks most signals): the child blocks
    /// none, a SIGTERM ends it, and the starting thread's mask is as it was.
    @Test func aChildStartedFromATaskBlocksNoSignalAndHearsSIGTERM() async throws {
        var before = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &before)
        let status = Process()
        status.executableURL = URL(fileURLWithPath: "/bin/cat")
        status.arguments = ["/proc/self/status"]
        let output = Pipe()
        status.standardOutput = output
        try status.runUnblocked()
        #expect(Self.signalMasks(of: status, reading: output)["SigBlk"] == "0000000000000000")
        var after = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &after)
        #expect(withUnsafeBytes(of: &before) { Array($0) } == withUnsafeBytes(of: &after) { Array($0) })

        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["600"]
        try sleeper.runUnblocked()
        sleeper.terminate()
        sleeper.waitUntilExit()
        #expect(sleeper.terminationReason == .uncaughtSignal && sleeper.terminationStatus == SIGTERM)
    }

    /// Children started at once from many threads, long-lived ones among short ones: the end
    /// of each short one is seen while the long ones still run (none inherited the end of
    /// Foundation's socket pair by which another child's end is seen).
    @Test func childrenStartedTogetherAreEachSeenToEnd() async throws {
        let tally = Tally()
        defer { for sleeper in tally.sleepers.withLock({ $0 }) { sleeper.terminate() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        let child = Process()
                        child.executableURL = URL(fileURLWithPath: index % 5 == 0 ? "/bin/sleep" : "/bin/true")
                        child.arguments = index % 5 == 0 ? ["3600"] : []
                        if index % 5 == 0 {
                            tally.sleepers.withLock { $0.append(child) }
                        } else {
                            child.terminationHandler = { _ in tally.ended.withLock { $0 += 1 } }
                        }
                        try child.runUnblocked()
                    }
                }
            }
            try await group.waitForAll()
        }
        // Each long one holds one socket: its own end of its pair, no other child's.
        for sleeper in tally.sleepers.withLock({ $0 }) {
            let fds = "/proc/\(sleeper.processIdentifier)/fd"
            let sockets = try FileManager.default.contentsOfDirectory(atPath: fds).filter {
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)) ?? "").hasPrefix("socket:")
            }
            #expect(sockets.count == 1, "\(sleeper.processIdentifier) holds \(sockets.count) sockets")
        }
        try await waitFor("the end of 160 short children, 40 long ones running", seen: { "\(tally.ended.withLock { $0 }) seen to end" }) {
            tally.ended.withLock { $0 } == 160
        }
    }
}

/// The short children seen to end, and the long ones to stop afterwards.
final class Tally: Sendable {
    let ended = Mutex(0)
    let sleepers = Mutex<[Process]>([])
}
