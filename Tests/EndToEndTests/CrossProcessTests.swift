import Foundation
import Testing

/// Several processes on one store file.
struct CrossProcessTests {
    let scratch = Scratch()
    let caresync: CareSyncCommand
    let day = "2026-11-23"

    init() async throws {
        caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-01")
        guard load.status == 0 else { throw CommandFailed(result: load) }
    }

    /// `history --follow` in one process sees a completion committed by another.
    @Test func aFollowerSeesAnotherProcesssCompletion() async throws {
        let start = try await caresync.run("history", "--json").lines.count
        let follower = try await RunningProcess(
            CareSyncCommand.executable, ["history", "--follow", "--json", "--after", "\(start)", "--store", caresync.store])
        defer { follower.terminate(signal: SIGTERM) }
        let result = try await caresync.run("complete", "golden-apple", "--occurrence", "2", "--date", day, "--device", "other-process")
        #expect(result.status == 0)
        let line = try await #require(follower.waitForLine { $0.contains("\"outcomeRecorded\"") })
        let change = try JSONDecoder().decode(Change.self, from: Data(line.utf8))
        #expect(change.revision == start + 1)
        #expect(change.device == "other-process")
        #expect(change.event == Change.Key(activity: "golden-apple", day: day, occurrence: 2))
    }

    /// Processes writing at once: every completion lands once, with its own revision.
    @Test func concurrentProcessesAllLand() async throws {
        let start = try await caresync.run("history", "--json").lines.count
        let jobs = (0..<3).flatMap { occurrence in
            ["2026-11-20", "2026-11-21", "2026-11-22"].map { (occurrence, $0) }
        }
        let store = caresync.store
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for (occurrence, date) in jobs {
                group.addTask {
                    try await CareSyncCommand.run(
                        executable: CareSyncCommand.executable,
                        ["complete", "golden-apple", "--occurrence", "\(occurrence)", "--date", date, "--store", store]
                    ).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 0, count: jobs.count))
        let changes = try await caresync.run("history", "--json", "--after", "\(start)").lines.map {
            try JSONDecoder().decode(Change.self, from: Data($0.utf8))
        }
        #expect(changes.map(\.revision) == Array(start + 1...start + jobs.count))
        let keys = Set(changes.compactMap { $0.event.map { "\($0.day)#\($0.occurrence)" } })
        #expect(keys.count == jobs.count)
    }
}
