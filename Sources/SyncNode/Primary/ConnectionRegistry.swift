import CarePlan
import Metrics
import Synchronization
import SyncProtocol

/// The primary's open connections, so that it can send to companions of a role (reminders
/// to watches), cut off a revoked device and say Goodbye to each when shutting down.
///
/// An edge of SyncNode, where frames are written: what it fans out is the message itself,
/// made once by SyncProtocol's factories from domain values (a reminder, a revocation's
/// Error, Goodbye) and handed as it is to each connection's channel, which frames it. Mapping
/// it back to a domain value for each connection would only re-encode the same message.
final class ConnectionRegistry: Sendable {
    /// Sends a last envelope, then closes the connection.
    typealias Close = @Sendable (Caresync_V1_Envelope) async -> Void
    typealias Send = @Sendable (Caresync_V1_Envelope) async -> Void

    /// What a connection's senders are woken for, besides contexts.
    enum Waiting: Sendable {
        /// A report shared with its device (household devices that receive reports).
        case reports
        /// A dose alert raised (household devices that receive alerts).
        case alerts
    }

    private struct Entry {
        var device: String
        var role: DeviceRole
        var send: Send
        var close: Close
        /// Wakes the connection's sender of reports or of alerts.
        var wake: @Sendable (Waiting) -> Void
    }

    private let entries = Mutex<(next: Int, all: [Int: Entry], closed: Bool)>((0, [:], false))
    /// Told the number of open connections of each role whenever it changes.
    private let gauges: [DeviceRole: Gauge]

    init(gauges: [DeviceRole: Gauge]) {
        self.gauges = gauges
    }

    /// Registers an open connection; `nil` once the primary has started saying goodbye.
    func register(
        device: String, role: DeviceRole, send: @escaping Send, close: @escaping Close, wake: @escaping @Sendable (Waiting) -> Void
    ) -> Int? {
        entries.withLock { entries in
            guard !entries.closed else { return nil }
            entries.next += 1
            entries.all[entries.next] = Entry(device: device, role: role, send: send, close: close, wake: wake)
            count(role, in: entries.all)
            return entries.next
        }
    }

    private func count(_ role: DeviceRole, in all: [Int: Entry]) {
        gauges[role]?.record(all.values.count { $0.role == role })
    }

    /// Sends `envelope` to every connection of `role`.
    func broadcast(_ envelope: Caresync_V1_Envelope, to role: DeviceRole) async {
        let sends = entries.withLock { $0.all.values.filter { $0.role == role }.map(\.send) }
        await withDiscardingTaskGroup { group in
            for send in sends { group.addTask { await send(envelope) } }
        }
    }

    func remove(_ id: Int) {
        entries.withLock { entries in
            guard let removed = entries.all.removeValue(forKey: id) else { return }
            count(removed.role, in: entries.all)
        }
    }

    var count: Int { entries.withLock { $0.all.count } }

    /// Tells every connection of `device` that a report waits for it.
    func reportsWaiting(for device: String) {
        for wake in entries.withLock({ $0.all.values.filter { $0.device == device }.map(\.wake) }) { wake(.reports) }
    }

    /// Tells every household device's connection that alerts were raised.
    func alertsRaised() {
        for wake in entries.withLock({ $0.all.values.filter { $0.role == .household }.map(\.wake) }) { wake(.alerts) }
    }

    /// Closes every connection of `device`, telling it why.
    func cut(device: String, with envelope: Caresync_V1_Envelope) async {
        let closes = entries.withLock { $0.all.values.filter { $0.device == device }.map(\.close) }
        await closeAll(closes, with: envelope)
    }

    /// Tells every connection why it is closing and closes it; registers no more.
    func sayGoodbye(_ reason: Caresync_V1_GoodbyeReason, _ detail: String) async {
        let closes = entries.withLock { entries in
            entries.closed = true
            return entries.all.values.map(\.close)
        }
        await closeAll(closes, with: .goodbye(reason, detail: detail))
    }

    private func closeAll(_ closes: [Close], with envelope: Caresync_V1_Envelope) async {
        await withDiscardingTaskGroup { group in
            for close in closes { group.addTask { await close(envelope) } }
        }
    }
}
