import CarePlan
import DesktopNotification
import Foundation
import Logging
import ServiceLifecycle
import SimulatorSupport
import Synchronization
import SyncNode
import Waiting

/// Shows the household device's dose alerts: each as a line when it arrives, and as a
/// desktop notification at once or, held by quiet hours or a snooze (``AlertGate``), when
/// they end. One gate per person, so that one person's all clear never takes another's alert.
final class AlertPresenter: Service, Sendable {
    private let gates = Mutex<[String: (gate: AlertGate, output: EventOutput)]>([:])
    private let settings: Mutex<(quietHours: QuietHours?, snoozedUntil: Date?)>
    private let wake = WakeSignal()
    private let logger: Logger

    init(quietHours: QuietHours?, logger: Logger) {
        settings = Mutex((quietHours, nil))
        self.logger = logger
    }

    /// The alerts a person's node received, newest first.
    @Sendable func present(_ alerts: [DoseAlert], output: EventOutput, person: PersonLabel) {
        let now = Date()
        let gate = gates.withLock { gates in
            if let known = gates[person.id] { return known.gate }
            let (quietHours, snoozedUntil) = settings.withLock { $0 }
            let gate = AlertGate(quietHours: quietHours, timeZone: .current)
            if let snoozedUntil { gate.snooze(until: snoozedUntil) }
            gates[person.id] = (gate, output)
            return gate
        }
        let shown = Set(gate.admit(alerts, at: now).map(\.sequence))
        for alert in alerts.reversed() {
            output.show(alert, notified: shown.contains(alert.sequence))
            if shown.contains(alert.sequence) { notify(alert, person: person) }
        }
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
        settings.withLock { $0.quietHours = quietHours }
        for gate in gates.withLock({ $0.values.map(\.gate) }) { gate.quietHours = quietHours }
        wake.signal()
    }

    /// `snooze MINUTES`.
    func snooze(_ words: [Substring], _ output: EventOutput) {
        guard words.count == 2, let minutes = Int(words[1]), (1...1440).contains(minutes) else {
            return output.showError(code: "USAGE", message: "snooze MINUTES (1 to 1440)")
        }
        let until = Date().addingTimeInterval(Double(minutes) * 60)
        settings.withLock { $0.snoozedUntil = until }
        for gate in gates.withLock({ $0.values.map(\.gate) }) { gate.snooze(until: until) }
        wake.signal()
    }

    /// Shows held alerts as their quiet hours or snooze end, until a graceful shutdown.
    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                let now = Date()
                for person in gates.withLock({ $0 }) {
                    let (gate, output) = person.value
                    for alert in gate.release(at: now) {
                        output.show(alert, notified: true)
                        notify(alert, person: output.person ?? PersonLabel(id: person.key, name: ""))
                    }
                }
                let next = gates.withLock { $0.values.compactMap { $0.gate.nextRelease(after: now) }.min() }
                await wake.wait(timeout: next.map { .seconds(max(0.01, $0.timeIntervalSinceNow)) } ?? .seconds(3600))
            }
        }
    }

    private func notify(_ alert: DoseAlert, person: PersonLabel) {
        DesktopNotification.post(title: "CareSync: \(person.name)", body: EventOutput.text(of: alert), logger: logger)
    }
}
