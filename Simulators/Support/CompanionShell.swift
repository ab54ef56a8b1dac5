import CarePlan
import Foundation
import MetricsEndpoint
import SyncNode
import SyncProtocol

/// A companion that follows its primary and takes commands on standard input, one per
/// line: `list`, `complete`, `skip`, `quit`, and whatever commands its role adds.
public struct CompanionShell: Sendable {
    public typealias Command = @Sendable (_ words: [Substring], _ shell: CompanionShell) async -> Void

    public let node: CompanionNode
    public let output: EventOutput

    public init(node: CompanionNode, output: EventOutput) {
        self.node = node
        self.output = output
    }

    /// Follows the primary and runs commands until `quit` or the end of input, with the
    /// metrics endpoint (if any) serving beside.
    public func run(extra: [String: Command] = [:], metrics: MetricsEndpoint? = nil) async {
        // Nothing in the shell throws: the commands report their own failures.
        try? await MetricsEndpoint.serving(metrics, onListening: output.showMetrics) { await follow(extra: extra) }
    }

    private func follow(extra: [String: Command]) async {
        output.showIdentity(fingerprint: node.identity.fingerprint, display: node.identity.displayFingerprint)
        if let cached = node.context { output.show(cached, type: "cached", pending: node.pending) }
        let names = (["list", "complete", "skip"] + extra.keys.sorted() + ["quit"]).joined(separator: ", ")
        await withTaskGroup(of: Void.self) { [node, output] group in
            group.addTask { await node.run() }
            group.addTask {
                for await event in node.events { output.show(event) }
            }
            for await line in StandardInput.lines() {
                let words = line.split(separator: " ")
                guard let command = words.first.map(String.init) else { continue }
                switch command {
                case "quit":
                    await node.stop()
                    return
                case "list":
                    if let context = node.context { output.show(context, type: "list", pending: node.pending) }
                    else { output.showError(code: "NO_CONTEXT", message: "no context received yet") }
                case "complete", "skip":
                    await record(words, notDone: command == "skip")
                default:
                    guard let handler = extra[command] else {
                        output.showError(code: "UNKNOWN_COMMAND", message: "unknown command \"\(command)\": use \(names)")
                        continue
                    }
                    await handler(words, self)
                }
            }
            await node.stop()
        }
    }

    /// The event named by `ACTIVITY[@DAY] OCCURRENCE` in a command, or `nil` after saying what is wrong.
    public func eventKey(_ words: [Substring], usage: String) -> EventKey? {
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

    /// `complete ACTIVITY OCCURRENCE [VALUE…]` or `skip ACTIVITY OCCURRENCE [REASON…]`.
    public func record(_ words: [Substring], notDone: Bool) async {
        guard let key = eventKey(words, usage: notDone ? "[REASON…]" : "[VALUE…]") else { return }
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
