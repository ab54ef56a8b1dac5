import ChildProcess
import Foundation
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
}
