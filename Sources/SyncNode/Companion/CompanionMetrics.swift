import Metrics

/// What a companion counts and times (documented in SyncNode.docc/Metrics.md).
struct CompanionMetrics: Sendable {
    /// 1 while a connection to the primary is up.
    let connected = Gauge(label: "caresync_companion_connected")
    /// Connections that ended, by whether their handshake had succeeded.
    let sessionsEnded: [Bool: Counter] = [
        true: Counter(label: "caresync_companion_sessions_ended_total", dimensions: [("established", "true")]),
        false: Counter(label: "caresync_companion_sessions_ended_total", dimensions: [("established", "false")]),
    ]
    /// Completions waiting in the outbox.
    let outboxDepth = Gauge(label: "caresync_companion_outbox_depth")
    /// Measurements waiting for the primary.
    let measurementsWaiting = Gauge(label: "caresync_companion_measurements_waiting")
    /// From sending a completion to its answer.
    let roundTrip = Timer(label: "caresync_companion_round_trip_seconds", preferredDisplayUnit: .seconds)
    /// Contexts received, by form: whole (`snapshot`) or a ContextDelta applied (`delta`);
    /// keyed by whether it was a delta.
    let contextsReceived: [Bool: Counter] = [
        false: Counter(label: "caresync_companion_contexts_received_total", dimensions: [("form", "snapshot")]),
        true: Counter(label: "caresync_companion_contexts_received_total", dimensions: [("form", "delta")]),
    ]
}
