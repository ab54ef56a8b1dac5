import CarePlan
import DesktopNotification
import Foundation
import Logging
import PrivateFiles
import ServiceLifecycle
import SimulatorSupport
import Synchronization
import SyncNode
import Waiting

/// Shows the household device's dose alerts: each as a line when it arrives, and as a
/// desktop notification at once or, held by quiet hours or a snooze (``AlertGate``), when
/// they end. One gate per person, so that one person's all clear never takes another's
/// alert. The quiet hours, the snooze and the alerts held are kept in the state directory
/// (`alerts.json`), so that a restart in the night still notifies in the morning.
final class AlertPresenter: Service, Sendable {
    /// Each person's gate and output, by the primary's fingerprint.
    private let people: [String: (gate: AlertGate, output: EventOutput)]
    private let settings: Mutex<Settings>
    private let file: String
    private let wake = WakeSignal()
    private let logger: Logger

    /// What `alerts.json` keeps.
    private struct Settings: Codable {
        var quietHours: String?
        var snoozedUntil: Date?
        var held: [String: [DoseAlert]] = [:]
    }

    /// - Parameters:
    ///   - people: each person's fingerprint and output.
    ///   - quietHours: the quiet hours asked for at start, else those kept.
    init(people: [(id: String, output: EventOutput)], stateDirectory: String, quietHours: QuietHours?, logger: Logger) {
        file = stateDirectory + "/alerts.json"
        var kept = (try? Data(contentsOf: URL(fileURLWithPath: file))).flatMap { try? JSONDecoder().decode(Settings.self, from: $0) }
            ?? Settings()
        if let quietHours { kept.quietHours = quietHours.description }
        let quiet = kept.quietHours.flatMap(QuietHours.init)
        self.people = Dictionary(uniqueKeysWithValues: people.map { person in
            let gate = AlertGate(quietHours: quiet, snoozedUntil: kept.snoozedUntil, held: kept.held[person.id] ?? [], timeZone: .current)
            return (person.id, (gate, person.output))
        })
        settings = Mutex(kept)
        self.logger = logger
    }

    /// The alerts a person's node received, newest first.
    @Sendable func present(_ alerts: [DoseAlert], output: EventOutput, person: PersonLabel) {
        guard let gate = people[person.id]?.gate else { return alerts.forEach { output.show($0, notified: true) } }
        let shown = Set(gate.admit(alerts, at: Date()).map(\.sequence))
        for alert in alerts.reversed() {
            output.show(alert, notified: shown.contains(alert.sequence))
            if shown.contains(alert.sequence) { notify(alert, person: person) }
        }
        save()
        wake.signal()
    }

    /// `quiet HH:MM-HH:MM` or `quiet off`.
    func quiet(_ words: [Substring], _ output: EventOutput) {
        let quietHours: QuietHours?
        switch words.dropFirst().first {
        case "off"?: quietHours = nil
        case let text? where QuietHours(String(text)) != nil: quietHours = QuietHours(String(text))
        default: return output.showError(code: "USAGE", message: "quiet HH:MM-HH:MM | quiet off")
        }
        settings.withLock { $0.quietHours = quietHours?.description }
        for person in people.values { person.gate.quietHours = quietHours }
        save()
        wake.signal()
    }

    /// `snooze MINUTES`.
    func snooze(_ words: [Substring], _ output: EventOutput) {
        guard words.count == 2, let minutes = Int(words[1]), (1...1440).contains(minutes) else {
            return output.showError(code: "USAGE", message: "snooze MINUTES (1 to 1440)")
        }
        let until = Date().addingTimeInterval(Double(minutes) * 60)
        settings.withLock { $0.snoozedUntil = until }
        for person in people.values { person.gate.snooze(until: until) }
        save()
        wake.signal()
    }

    /// Shows held alerts as their quiet hours or snooze end, until a graceful shutdown.
    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                let now = Date()
                var released = false
                for (id, person) in people {
                    for alert in person.gate.release(at: now) {
                        released = true
                        person.output.show(alert, notified: true)
                        notify(alert, person: person.output.person ?? PersonLabel(id: id, name: ""))
                    }
                }
                if released { save() }
                let next = people.values.compactMap { $0.gate.nextRelease(after: now) }.min()
                await wake.wait(timeout: next.map { .seconds(max(0.01, $0.timeIntervalSinceNow)) } ?? .seconds(3600))
            }
        }
    }

    /// Keeps the settings and what each gate holds; a failure is logged (alerts still show).
    private func save() {
        let held = people.mapValues { $0.gate.held }.filter { !$0.value.isEmpty }
        do {
            let settings = settings.withLock { settings in
                settings.held = held
                return settings
            }
            try PrivateFiles.replace(file, contents: Array(try JSONEncoder().encode(settings)))
        } catch {
            logger.warning("could not keep the alerts held and the quiet hours", metadata: ["file": "\(file)", "error": "\(error)"])
        }
    }

    private func notify(_ alert: DoseAlert, person: PersonLabel) {
        DesktopNotification.post(title: "CareSync: \(person.name)", body: EventOutput.text(of: alert), logger: logger)
    }
}
