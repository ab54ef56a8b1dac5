import ArgumentParser
import CarePlan
import Foundation
import SimulatorSupport
import SyncNode
import SyncProtocol

@main
struct WatchSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch-sim",
        abstract: Follow.configuration.abstract,
        subcommands: [Follow.self, PairCommand<WatchRole>.self],
        defaultSubcommand: Follow.self)
}

enum WatchRole: SimulatorRole {
    static let role = Caresync_V1_Role.watch
    static let defaultName = "Watch"
}

/// Follow the primary and take commands on stdin (the default).
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "A watch app: shows today's incomplete activities and records completions.",
        discussion: """
            Commands, one per line on stdin:
              list                                  today's incomplete activities
              complete ACTIVITY OCCURRENCE [VALUE…] record it as done (values: numbers or text)
              skip ACTIVITY OCCURRENCE [REASON…]    record it as not done
              done ACTIVITY OCCURRENCE              answer a reminder: the same as complete
              snooze ACTIVITY OCCURRENCE MINUTES    answer a reminder: remind again later
            ACTIVITY is an id, for today's event, or ID@YYYY-MM-DD for another day's.
              quit                                  say goodbye and exit
            With --json every context, reply and error is written as one JSON line.
            """)

    @OptionGroup var options: CompanionOptions

    func run() async throws {
        let output = EventOutput(json: options.json)
        let node = try CompanionNode(configuration: options.configuration(role: .watch, defaultName: "Watch") {
            output.showDiscovery($0)
        })
        output.showIdentity(fingerprint: node.identity.fingerprint, display: node.identity.displayFingerprint)
        if let cached = node.context { output.show(cached, type: "cached", pending: node.pending) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await node.run() }
            group.addTask {
                for await event in node.events { output.show(event) }
            }
            for await line in StandardInput.lines() {
                let words = line.split(separator: " ")
                guard let command = words.first else { continue }
                switch command {
                case "quit":
                    await node.stop()
                    return
                case "list":
                    if let context = node.context { output.show(context, type: "list", pending: node.pending) }
                    else { output.showError(code: "NO_CONTEXT", message: "no context received yet") }
                case "complete", "done", "skip":
                    await record(words, notDone: command == "skip", node: node, output: output)
                case "snooze":
                    await snooze(words, node: node, output: output)
                default:
                    output.showError(code: "UNKNOWN_COMMAND", message: "unknown command \"\(command)\": use list, complete, done, skip, snooze or quit")
                }
            }
            await node.stop()
        }
    }

    /// The event named by `ACTIVITY[@DAY] OCCURRENCE` in a command, or `nil` after saying what is wrong.
    private func eventKey(_ words: [Substring], usage: String, node: CompanionNode, output: EventOutput) -> EventKey? {
        guard words.count >= 3, let occurrence = Int(words[2]) else {
            output.showError(code: "USAGE", message: "\(words[0]) ACTIVITY OCCURRENCE \(usage)")
            return nil
        }
        let target = words[1].split(separator: "@", maxSplits: 1)
        let today = node.context?.days.first?.day ?? CalendarDay.containing(Date(), in: .current)
        guard let day = target.count == 2 ? CalendarDay(String(target[1])) : today else {
            output.showError(code: "USAGE", message: "\(words[1]): the day must be YYYY-MM-DD")
            return nil
        }
        return EventKey(activityID: String(target[0]), day: day, occurrence: occurrence)
    }

    private func snooze(_ words: [Substring], node: CompanionNode, output: EventOutput) async {
        guard let key = eventKey(words, usage: "MINUTES", node: node, output: output),
              let minutes = words.count > 3 ? Int(words[3]) : nil, minutes > 0 else {
            output.showError(code: "USAGE", message: "snooze ACTIVITY OCCURRENCE MINUTES")
            return
        }
        do {
            try await node.snooze(key, minutes: minutes)
        } catch {
            output.showError(code: "NOT_REACHABLE", message: "\(error)")
        }
    }

    private func record(_ words: [Substring], notDone: Bool, node: CompanionNode, output: EventOutput) async {
        guard let key = eventKey(words, usage: "[VALUE…]", node: node, output: output) else { return }
        let extra = words.dropFirst(3)
        do {
            let result = try await node.complete(
                key, state: notDone ? .notCompleted : .completed, values: notDone ? [] : outcomeValues(extra),
                reason: notDone && !extra.isEmpty ? extra.joined(separator: " ") : nil)
            // Replies that arrive in time are reported by the event stream; a queued one here.
            if result == .queued { output.show(result, key: key, messageID: "") }
        } catch {
            output.showError(code: "OUTBOX", message: "could not queue the completion: \(error)")
        }
    }
}
