import Foundation
import Testing

/// A real full disk: a 1 MiB tmpfs mounted in a private mount namespace (needs root and
/// `unshare`; skipped where they are missing).
struct DiskFullTests {
    static let canMount: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = try? CareSyncCommand.runBlocking(executable: URL(fileURLWithPath: "/usr/bin/unshare"), ["-m", "true"])
        return probe?.status == 0
    }()

    /// Fills the disk with completions: the one that does not fit is refused with a clear
    /// error, and every completion acknowledged before it is still in the store. Each is a dose
    /// not taken with a long reason (an intervention takes no value).
    static let script = #"""
        set -u
        bin=$1; dir=$2; errors=$3
        mount -t tmpfs -o size=1m tmpfs "$dir" || exit 90
        store="$dir/store.sqlite"
        "$bin" plan load "$4" --effective 2026-01-01 --store "$store" >/dev/null || exit 91
        big=$(head -c 20000 /dev/zero | tr '\0' 'x')
        acked=0
        for i in $(seq 0 499); do
          day=$(date -u -d "2026-01-01 + $i days" +%F)
          if "$bin" complete lisinopril --occurrence 0 --date "$day" --not-done --reason "$big" --store "$store" >/dev/null 2>"$errors"; then
            acked=$((acked + 1))
          else
            echo "status $?"
            break
          fi
        done
        echo "acknowledged $acked"
        echo "recorded $("$bin" history --json --store "$store" | grep -c outcomeRecorded)"
        """#

    @Test(.enabled(if: canMount)) func aFullDiskRefusesCleanlyAndLosesNothing() async throws {
        let scratch = Scratch()
        let mountPoint = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let errors = scratch.path("stderr.txt")
        let result = try await CareSyncCommand.run(
            executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            ["-m", "/bin/sh", "-c", Self.script, "sh", CareSyncCommand.executable.path, mountPoint, errors,
             CareSyncCommand.example("minimal-plan.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let figures = Dictionary(uniqueKeysWithValues: result.lines.compactMap { line -> (String, Int)? in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        })
        #expect(figures["status"] == 1)
        let acknowledged = try #require(figures["acknowledged"])
        #expect(acknowledged > 0)
        #expect(figures["recorded"] == acknowledged)
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(message.hasPrefix("caresync: the disk is full: nothing was written to \(mountPoint)/store.sqlite"))
    }
}
