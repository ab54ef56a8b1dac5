import CarePlan
import Foundation
import Metrics
import SyncProtocol

/// What a primary counts and times, through swift-metrics: whatever backend the program
/// bootstraps (the Prometheus endpoint of `--metrics-port`, say) receives them. The names
/// are documented in SyncNode.docc/Metrics.md; made when the node is, after the bootstrap.
struct PrimaryMetrics: Sendable {
    /// Open connections of companions past their handshake, by role.
    let connections: [DeviceRole: Gauge] = Dictionary(uniqueKeysWithValues: DeviceRole.allCases.map { role in
        (role, Gauge(label: "caresync_primary_connections", dimensions: [("role", role.rawValue)]))
    })
    /// Connections closed with an Error (a refused handshake, a protocol violation), by code.
    func closedWithError(_ error: ProtocolError) {
        Counter(label: "caresync_primary_connections_closed_with_error_total", dimensions: [("code", "\(error.code)")]).increment()
    }

    /// Completions answered, by how: accepted or rejected by the store, refused as a
    /// message, failed (the store could not record it; the companion sends it again).
    let completions: [String: Counter] = Dictionary(uniqueKeysWithValues: ["accepted", "rejected", "refused", "failed"].map {
        ($0, Counter(label: "caresync_primary_completions_total", dimensions: [("status", $0)]))
    })
    /// From a completion's arrival to its reply, the store's commit included.
    let completionTime = Timer(label: "caresync_primary_completion_seconds", preferredDisplayUnit: .seconds)
    /// From the commit of the oldest change a context is the first to carry to its frame
    /// written to a connection: commit-to-fan-out latency.
    let fanOutTime = Timer(label: "caresync_primary_fanout_seconds", preferredDisplayUnit: .seconds)
    /// Context frames written to connections, and their size, by form: a whole context
    /// (`snapshot`) or a ContextDelta (`delta`); keyed by whether it is a delta.
    let contextsSent: [Bool: Counter] = [
        false: Counter(label: "caresync_primary_contexts_sent_total", dimensions: [("form", "snapshot")]),
        true: Counter(label: "caresync_primary_contexts_sent_total", dimensions: [("form", "delta")]),
    ]
    let contextBytes: [Bool: Recorder] = [
        false: Recorder(label: "caresync_primary_context_bytes", dimensions: [("form", "snapshot")]),
        true: Recorder(label: "caresync_primary_context_bytes", dimensions: [("form", "delta")]),
    ]
    /// Measurement samples answered, by how: stored, duplicate (stored before) or refused.
    let measurements: [String: Counter] = Dictionary(uniqueKeysWithValues: ["stored", "duplicate", "refused"].map {
        ($0, Counter(label: "caresync_primary_measurements_total", dimensions: [("status", $0)]))
    })
    /// Reminders delivered to watches.
    let reminders = Counter(label: "caresync_primary_reminders_total")
    /// Dose alerts raised (missed doses and all clears), by kind.
    func alertsRaised(_ alerts: [DoseAlert]) {
        for kind in DoseAlert.Kind.allCases {
            let count = alerts.count { $0.kind == kind }
            if count > 0 { Counter(label: "caresync_primary_dose_alerts_total", dimensions: [("kind", kind.rawValue)]).increment(by: count) }
        }
    }
    /// From the commit of the oldest change a standby step brings to the household device
    /// saying the step is on its disk: how far behind a standby copy was.
    let standbyLag = Timer(label: "caresync_primary_standby_lag_seconds", preferredDisplayUnit: .seconds)
    /// The revision the last standby step brought a copy to.
    let standbyRevision = Gauge(label: "caresync_primary_standby_revision")
    /// Pairing requests judged, by result.
    let pairings: [String: Counter] = Dictionary(uniqueKeysWithValues: ["paired", "refused"].map {
        ($0, Counter(label: "caresync_primary_pairings_total", dimensions: [("result", $0)]))
    })
}
