import Foundation
import Testing

/// A simulator's standard output under load: its event stream and its command loop write at
/// once, lines far longer than a pipe keeps whole; a program reading it gets whole lines.
struct SimulatorOutputTests {
    let scratch = Scratch()

    @Test func everyLineOfAWatchUnderLoadIsWholeJSON() async throws {
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let padding = String(repeating: "long title ", count: 14)
        let activities = (0..<200).map {
            #"{"id": "a-\#($0)", "kind": "intervention", "title": "\#($0) \#(padding)", "schedule": {"times": ["08:00"]}}"#
        }
        let plan = scratch.path("plan.json")
        try #"{"title": "Load", "timeZone": "UTC", "start": "\#(today)", "activities": [\#(activities.joined(separator: ","))]}"#
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        #expect(try await caresync.run("plan", "load", plan, "--effective", today).status == 0)
        let primary = try await PrimaryProcess(store: caresync.store)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        try await watch.waitFor("context")

        // Each completion brings a reply and a new context from the event stream while the
        // command loop prints the whole list.
        let rounds = 30
        for n in 0..<rounds {
            watch.send("list")
            watch.send("complete a-\(n) 0")
        }
        try await watch.waitFor("reply", count: rounds)
        try await watch.waitFor("list", count: rounds)
        let lines = watch.process.output
        let broken = lines.filter { WatchProcess.object($0) == nil }
        #expect(broken.isEmpty, "\(broken.count) lines are not JSON: \(broken.first?.prefix(80) ?? "")")
        #expect(lines.filter { $0.utf8.count > 65_536 }.count >= rounds, "the lines must be longer than a pipe keeps whole")
    }
}
