import CarePlan
import Foundation
import LineOutput
import SyncNode
import SyncProtocol

/// How simulators show what happens: one JSON object per line, or a line of text.
public struct EventOutput: Sendable {
    public let json: Bool

    public init(json: Bool) {
        self.json = json
    }

    public func show(_ event: CompanionEvent) {
        switch event {
        case .connected(let id, let name):
            write(["type": "connected", "primary": id, "name": name], text: "Connected to \(name) (\(id))")
        case .disconnected(let reason):
            write(["type": "disconnected", "reason": reason], text: "Disconnected: \(reason)")
        case .context(let context):
            show(context, type: "context")
        case .reply(let messageID, let key, let result):
            show(result, key: key, messageID: messageID)
        case .reminder(let reminder):
            write(["type": "reminder", "activity": reminder.activityID, "day": reminder.day,
                   "occurrence": Int(reminder.occurrence), "title": reminder.title, "time": reminder.timeOfDay],
                  text: "⏰ \(reminder.title) \(reminder.timeOfDay)")
        case .error(let code, let message):
            showError(code: code, message: message)
        }
    }

    /// A context: its revision and days, with every event and the list still to do.
    public func show(_ context: ApplicationContext, type: String, pending: [EventKey] = []) {
        let items = context.days.flatMap(\.events)
        let incomplete = context.incomplete.filter { !pending.contains($0.key) }
        let fields: [String: Any] = [
            "type": type, "revision": context.revision, "plan": context.planTitle,
            "days": context.days.map(\.day.description),
            "events": items.map(Self.fields), "incomplete": incomplete.map(Self.fields),
            "pending": pending.map(\.description),
        ]
        var lines = ["\(context.planTitle) · revision \(context.revision) · \(incomplete.count) to do"]
        for item in incomplete {
            lines.append("  ○ \(item.key.activityID) \(item.key.occurrence)  \(item.title)\(item.time.map { "  \($0)" } ?? "")")
        }
        write(fields, text: lines.joined(separator: "\n"))
    }

    public func show(_ result: CompletionResult, key: EventKey, messageID: String) {
        var fields: [String: Any] = [
            "type": "reply", "messageID": messageID, "activity": key.activityID, "day": key.day.description,
            "occurrence": key.occurrence,
        ]
        let text: String
        switch result {
        case .accepted(let revision, let superseded, let state):
            fields.merge(["status": "accepted", "revision": revision, "superseded": superseded, "state": state.rawValue]) { $1 }
            text = "✓ \(key) recorded (revision \(revision))" + (superseded ? ", but a later change stands: \(state.rawValue)" : "")
        case .rejected(let reason, let detail):
            fields.merge(["status": "rejected", "reason": reason, "detail": detail]) { $1 }
            text = "✗ \(key) rejected: \(detail)"
        case .queued:
            fields["status"] = "queued"
            text = "… \(key) queued until the primary is reachable"
        }
        write(fields, text: text)
    }

    /// The node's identity, as people compare it.
    public func showIdentity(fingerprint: String, display: String) {
        write(["type": "identity", "fingerprint": fingerprint], text: "Identity \(display)")
    }

    /// How discovery chose the primary.
    public func showDiscovery(_ message: String) {
        write(["type": "discovery", "message": message], text: message)
    }

    public func showError(code: String, message: String) {
        write(["type": "error", "code": code, "message": message], text: "Error \(code): \(message)")
    }

    /// A failure: a ``ProtocolError`` with its own code and message (the code once, not
    /// repeated in the message), anything else under `code`.
    public func showError(_ error: any Error, otherwise code: String) {
        if let error = error as? ProtocolError {
            showError(code: error.code.description, message: error.message)
        } else {
            showError(code: code, message: "\(error)")
        }
    }

    static func fields(_ item: ApplicationContext.Item) -> [String: Any] {
        [
            "activity": item.key.activityID, "day": item.key.day.description, "occurrence": item.key.occurrence,
            "title": item.title, "kind": item.kind.rawValue, "time": item.time?.description ?? NSNull(),
            "state": item.state.rawValue, "values": item.values.map(\.formatted),
        ]
    }

    func write(_ fields: [String: Any], text: String) {
        guard json else {
            emit(text)
            return
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        emit(String(decoding: data, as: UTF8.self))
    }
}

/// Parses command words as outcome values: whole numbers, decimals, or text.
public func outcomeValues(_ words: some Sequence<Substring>) -> [OutcomeValue] {
    words.map { word in
        if let n = Int(word) { return OutcomeValue(.integer(n)) }
        if let d = Double(word) { return OutcomeValue(.decimal(d)) }
        return OutcomeValue(.text(String(word)))
    }
}

extension EventOutput {
    /// One entry of the primary's history.
    public func show(_ entry: Caresync_V1_HistoryEntry) {
        var fields: [String: Any] = [
            "type": "history", "revision": Int(entry.revision), "kind": entry.kind, "device": entry.device,
            "committedAt": ISO8601.string(from: Date(timeIntervalSince1970: Double(entry.committedAtMs) / 1000)),
        ]
        var text = "\(entry.revision)  \(entry.kind)"
        if !entry.pairedDevice.isEmpty {
            fields["pairedDevice"] = entry.pairedDevice
            text += "  \(entry.pairedDevice.prefix(8))…"
        }
        if !entry.activityID.isEmpty {
            fields.merge(["activity": entry.activityID, "day": entry.day, "occurrence": Int(entry.occurrence),
                          "state": "\(entry.state)", "reason": entry.reason]) { $1 }
            text += "  \(entry.activityID) \(entry.day) #\(entry.occurrence) \(entry.state)"
        }
        write(fields, text: text)
    }
}
