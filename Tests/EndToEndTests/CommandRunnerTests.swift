import Foundation
import Glibc
import TestSupport
import Testing

/// The tests' command runner reads a child's end from the kernel when Foundation has not
/// seen it yet (``CareSyncCommand/exitStatus(ofZombie:)``).
struct CommandRunnerTests {
    /// Starts `/bin/sh -c script` with posix_spawn (no Foundation to reap it), returns its pid.
    func spawn(_ script: String) throws -> pid_t {
        var pid = pid_t()
        let words: [String] = ["/bin/sh", "-c", script]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { word in strdup(word) } + [nil]
        defer { arguments.forEach { free($0) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, arguments, environ) == 0 else { throw POSIXError(.EINVAL) }
        return pid
    }

    @Test(arguments: [("exit 3", Int32(3)), ("exit 0", 0), ("kill -9 $$", SIGKILL)])
    func aZombiesStatusIsReadAsFoundationWouldGiveIt(script: String, status: Int32) async throws {
        let pid = try spawn(script)
        defer { var ignored: Int32 = 0; waitpid(pid, &ignored, 0) }
        let read = try await waitFor("the end of `\(script)`") { () -> Sighting<Int32> in
            CareSyncCommand.exitStatus(ofZombie: pid).map { .found($0) } ?? .notYet("not a zombie yet")
        }
        #expect(read == status)
    }

    @Test func aRunningProcessIsNoZombie() throws {
        let pid = try spawn("sleep 60")
        defer { kill(pid, SIGKILL); var ignored: Int32 = 0; waitpid(pid, &ignored, 0) }
        #expect(CareSyncCommand.exitStatus(ofZombie: pid) == nil)
    }
}
