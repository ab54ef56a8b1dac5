import CareBackup
import CarePlan
import Foundation
import LineOutput
import SyncNode
import SyncProtocol

/// How simulators show what happens: one JSON object per line, or a line of text.
public struct EventOutput: Sendable {
    public let json: Bool
    /// Whom the lines are about (a household device's person), read as each line is
    /// written: the name comes with the first context.
    private var label: (@Sendable () -> PersonLabel)?

    public init(json: Bool) {
        self.json = json
    }

    /// This output, with every line naming the person `node` follows.
    public func about(_ node: CompanionNode) -> EventOutput {
        var output = self
        output.label = { node.person }
        return output
    }

    /// Whom the lines are about, if anyone.
    public var person: PersonLabel? { label?() }

    public func show(_ event: CompanionEvent) {
        switch event {
        case .connected(let id, let name, let way):
            write(["type": "connected", "primary": .string(id), "name": .string(name), "way": .string(way.description)],
                  text: "Connected to \(name) (\(id)), \(way)")
        case .disconnected(let reason):
            write(["type": "disconnected", "reason": .string(reason)], text: "Disconnected: \(reason)")
        case .away(let notice):
            show(notice, zone: .current, now: Date())
        case .context(let context):
            show(context, type: "context")
        case .reply(let messageID, let key, let result):
            show(result, key: key, messageID: messageID)
        case .reminder(let notice):
            let reminder = notice.reminder
            write(["type": "reminder", "activity": .string(reminder.key.activityID), "day": .string(reminder.key.day.description),
                   "occurrence": .int(reminder.key.occurrence), "title": .string(reminder.title), "time": .string(reminder.time.description)],
                  text: "⏰ \(reminder.title) \(reminder.time)")
        case .report(let report):
            write(["type": "report", "revision": .int(report.revision), "path": .string(report.path),
                   "mediaType": .string(report.mediaType), "from": .string(report.days.lowerBound.description),
                   "through": .string(report.days.upperBound.description), "bytes": .int(report.bytes), "sha256": .string(report.sha256)],
                  text: "📄 care report \(report.days.lowerBound) – \(report.days.upperBound) saved to \(report.path)")
        case .measurements(let result):
            let refused = result.refused.map { JSONValue.object(["id": .string($0.id), "reason": .string($0.reason)]) }
            let lines = ["📈 \(result.stored) measurement\(result.stored == 1 ? "" : "s") stored, \(result.duplicates) already there, \(result.refused.count) refused"]
                + result.refused.map { "  ✗ \($0.id): \($0.reason)" }
            write(["type": "measurements", "batch": .string(result.batchID), "stored": .int(result.stored),
                   "duplicates": .int(result.duplicates), "refused": .array(refused)],
                  text: lines.joined(separator: "\n"))
        case .alerts(let alerts):
            for alert in alerts { show(alert, notified: true) }
        case .standby(let update):
            let lagMs = update.lag.map { Int(($0 * 1000).rounded()) }
            write(["type": "standby", "revision": .int(update.revision), "pages": .int(update.pages), "bytes": .int(update.bytes),
                   "lagMs": lagMs.map(JSONValue.int) ?? .null],
                  text: "🗄 standby copy at revision \(update.revision) (\(update.pages) page\(update.pages == 1 ? "" : "s")\(lagMs.map { ", \($0) ms behind" } ?? ""))")
        case .backupStatus(let status):
            show(status)
        case .error(let code, let message):
            showError(code: code, message: message)
        }
    }

    /// How the primary's backups stand: an alert while they fail.
    private func show(_ status: BackupHealth.Status) {
        let stamp = { (date: Date?) in date.map(ISO8601.string(from:)) }
        switch status {
        case .working(let lastMade):
            write(["type": "backup", "status": "working", "lastMade": .orNull(stamp(lastMade))],
                  text: "✓ the care record's backups work" + (stamp(lastMade).map { " (newest \($0))" } ?? ""))
        case .failing(let trouble):
            write(["type": "backup", "status": "failing", "since": .string(ISO8601.string(from: trouble.since)),
                   "reason": .string(trouble.reason), "retryAt": .string(ISO8601.string(from: trouble.retryAt)),
                   "lastMade": .orNull(stamp(trouble.lastMade))],
                  text: "⚠ " + Self.text(of: trouble))
        }
    }

    /// What a person reads of failing backups (a line, a desktop notification).
    public static func text(of trouble: BackupHealth.Trouble) -> String {
        "the care record's backups have failed since \(ISO8601.string(from: trouble.since)): \(trouble.reason); "
            + "next try \(ISO8601.string(from: trouble.retryAt)), newest backup \(trouble.lastMade.map(ISO8601.string(from:)) ?? "none")"
    }

    /// A dose alert, and whether it was shown as a notification (not held in quiet hours or
    /// a snooze).
    public func show(_ alert: DoseAlert, notified: Bool) {
        write(["type": "alert", "kind": .string(alert.kind.rawValue), "sequence": .int(alert.sequence),
               "activity": .string(alert.key.activityID), "day": .string(alert.key.day.description),
               "occurrence": .int(alert.key.occurrence), "title": .string(alert.title), "time": .string(alert.time.description),
               "dueAt": .string(ISO8601.string(from: alert.dueAt)), "raisedAt": .string(ISO8601.string(from: alert.raisedAt)),
               "critical": .bool(alert.critical), "outcome": .orNull(alert.outcome?.rawValue), "notified": .bool(notified)],
              text: Self.text(of: alert) + (notified ? "" : " (held: quiet)"))
    }

    /// An alert as a person reads it.
    public static func text(of alert: DoseAlert) -> String {
        let event = "\(alert.title) \(alert.time) on \(alert.key.day)"
        switch (alert.kind, alert.outcome) {
        case (.missed, _): return "⚠ Missed: \(event)" + (alert.critical ? " (critical)" : "")
        case (.cleared, .completed?): return "✓ All clear: \(event) was done"
        case (.cleared, .notCompleted?): return "✓ All clear: \(event) was marked not done"
        case (.cleared, _): return "✓ All clear: \(event) is no longer in the plan"
        }
    }

    /// A context: its revision and days, with every event and the list still to do.
    public func show(_ context: ApplicationContext, type: String, pending: [EventKey] = []) {
        let items = context.days.flatMap(\.events)
        let incomplete = context.incomplete.filter { !pending.contains($0.key) }
        let fields: [String: JSONValue] = [
            "type": .string(type), "revision": .int(context.revision), "plan": .string(context.planTitle),
            "days": .array(context.days.map { .string($0.day.description) }),
            "events": .array(items.map(Self.fields)), "incomplete": .array(incomplete.map(Self.fields)),
            "pending": .array(pending.map { .string($0.description) }),
        ]
        var lines = ["\(context.planTitle) · revision \(context.revision) · \(incomplete.count) to do"]
        for item in incomplete {
            lines.append("  ○ \(item.key.activityID) \(item.key.occurrence)  \(item.title)\(item.time.map { "  \($0)" } ?? "")")
        }
        write(fields, text: lines.joined(separator: "\n"))
    }

    public func show(_ result: CompletionResult, key: EventKey, messageID: String) {
        var fields: [String: JSONValue] = [
            "type": "reply", "messageID": .string(messageID), "activity": .string(key.activityID), "day": .string(key.day.description),
            "occurrence": .int(key.occurrence),
        ]
        let text: String
        switch result {
        case .accepted(let revision, let superseded, let state):
            fields.merge(["status": "accepted", "revision": .int(revision), "superseded": .bool(superseded), "state": .string(state.rawValue)]) { $1 }
            text = "✓ \(key) recorded (revision \(revision))" + (superseded ? ", but a later change stands: \(state.rawValue)" : "")
        case .rejected(let rejection, let detail):
            fields.merge(["status": "rejected", "reason": .string(rejection.rawValue), "detail": .string(detail)]) { $1 }
            text = "✗ \(key) rejected: \(detail)"
        case .refused(let code, let detail):
            // The same line as a rejection: the reason is the primary's Error code.
            fields.merge(["status": "rejected", "reason": .string(code), "detail": .string(detail)]) { $1 }
            text = "✗ \(key) refused: \(detail)"
        case .queued:
            fields["status"] = "queued"
            text = "… \(key) queued until the primary is reachable"
        }
        write(fields, text: text)
    }

    /// A measurement taken and queued for the primary, and how many wait now.
    public func showMeasured(_ sample: MeasurementSample, waiting: Int) {
        write(["type": "measured", "id": .string(sample.id), "measurement": .string(sample.type.rawValue), "waiting": .int(waiting)],
              text: "📈 \(sample.type.rawValue) queued (\(waiting) waiting)")
    }

    /// What a sensor run produced: `samples` taken from `from` to `to`.
    public func showSensor(samples: Int, from: Date?, to: Date?) {
        write(["type": "sensor", "samples": .int(samples), "from": .orNull(from.map(ISO8601.string)), "to": .orNull(to.map(ISO8601.string))],
              text: "📈 the sensor took \(samples) samples")
    }

    /// The node's identity, as people compare it.
    public func showIdentity(fingerprint: String, display: String) {
        write(["type": "identity", "fingerprint": .string(fingerprint)], text: "Identity \(display)")
    }

    /// Where the metrics endpoint listens.
    @Sendable public func showMetrics(port: Int) {
        write(["type": "metrics", "port": .int(port)], text: "Metrics at http://127.0.0.1:\(port)/metrics")
    }

    /// How discovery chose the primary.
    public func showDiscovery(_ message: String) {
        write(["type": "discovery", "message": .string(message)], text: message)
    }

    public func showError(code: String, message: String) {
        write(["type": "error", "code": .string(code), "message": .string(message)], text: "Error \(code): \(message)")
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

    static func fields(_ item: ApplicationContext.Item) -> JSONValue {
        [
            "activity": .string(item.key.activityID), "day": .string(item.key.day.description), "occurrence": .int(item.key.occurrence),
            "title": .string(item.title), "kind": .string(item.kind.rawValue), "time": .orNull(item.time?.description),
            "state": .string(item.state.rawValue), "values": .array(item.values.map { .string($0.formatted) }),
        ]
    }

    func write(_ fields: [String: JSONValue], text: String) {
        guard let person else { return json ? emitJSON(fields) : emit(text) }
        var fields = fields
        fields["person"] = .string(person.name)
        fields["personID"] = .string(person.id)
        json ? emitJSON(fields) : emit("\(person.name): " + text.replacingOccurrences(of: "\n", with: "\n\(person.name): "))
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
    public func show(_ entry: HistoryEntry) {
        var fields: [String: JSONValue] = [
            "type": "history", "revision": .int(entry.revision), "kind": .string(entry.kind), "device": .string(entry.device),
            "committedAt": .string(ISO8601.string(from: entry.committedAt)),
        ]
        var text = "\(entry.revision)  \(entry.kind)"
        if let paired = entry.pairedDevice {
            fields["pairedDevice"] = .string(paired)
            text += "  \(paired.prefix(8))…"
        }
        if let range = entry.range {
            fields.merge(["from": .string(range.lowerBound.description), "through": .string(range.upperBound.description),
                          "sharedTo": .string(entry.sharedTo ?? "")]) { $1 }
            if let contact = entry.contactID { fields["contact"] = .string(contact) }
            text += "  \(range.lowerBound)–\(range.upperBound) to \(entry.sharedTo ?? "?")"
        }
        if let activityID = entry.activityID {
            let day = entry.event?.day.description ?? ""
            let occurrence = entry.event?.occurrence ?? 0
            let state = entry.state?.rawValue ?? "unspecified"
            fields.merge(["activity": .string(activityID), "day": .string(day), "occurrence": .int(occurrence),
                          "state": .string(state), "reason": .string(entry.reason ?? "")]) { $1 }
            text += "  \(activityID) \(day) #\(occurrence) \(state)"
        }
        write(fields, text: text)
    }
}
