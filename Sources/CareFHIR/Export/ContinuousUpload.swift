import CarePlan
import CarePlanStore
import Foundation
import Clocks
import Waiting

/// Where one round of a ``ContinuousUpload`` sends: the server's uploaders of Observations
/// and of doses, and the patient the doses name, if not their orders'.
public struct UploadTarget: Sendable {
    public let observations: ObservationUploader
    public let doses: AdministrationUploader
    /// The subject of every MedicationAdministration, such as `Patient/p1`.
    public let doseSubject: String?

    public init(observations: ObservationUploader, doses: AdministrationUploader, doseSubject: String? = nil) {
        self.observations = observations
        self.doses = doses
        self.doseSubject = doseSubject
    }

    /// The server's base URL.
    public var server: String { observations.poster.url }
}

/// Keeps a FHIR server up to date with the store while a primary runs: every `interval`, the
/// measurements stored since the last upload go as Observations and the doses recorded since
/// as MedicationAdministrations, each through its uploader's cursor (so a restart resumes).
/// A failed round is reported and tried again after a backoff that grows to
/// `maximumBackoff`; nothing ends the loop but cancellation. It runs beside the sync
/// service and holds up nothing of it: it only reads the store, and writes its cursors.
///
/// Each round asks `target` where to send; a round without one (no health record connected)
/// sends nothing.
public struct ContinuousUpload: Sendable {
    /// What a round did, for the primary's output.
    public enum Event: Sendable, Hashable {
        /// Something was sent to `server`; the Observations' cursor now stands at `cursor`.
        case sent(server: String, observations: Int, administrations: Int, cursor: Int?)
        /// The round failed; the next starts after `retryIn`.
        case failed(reason: String, retryIn: Duration)
    }

    public let target: @Sendable () async throws -> UploadTarget?
    public let interval: Duration
    public let maximumBackoff: Duration
    /// Where "today" begins for a first upload, and what the rounds wait on.
    public let clock: any WallClock
    public let report: @Sendable (Event) -> Void

    public init(
        target: @escaping @Sendable () async throws -> UploadTarget?, interval: Duration, maximumBackoff: Duration = .seconds(60),
        clock: any WallClock = .system, report: @escaping @Sendable (Event) -> Void
    ) {
        self.target = target
        self.interval = interval
        self.maximumBackoff = maximumBackoff
        self.clock = clock
        self.report = report
    }

    /// Always to one server.
    public init(
        to target: UploadTarget, interval: Duration, maximumBackoff: Duration = .seconds(60), clock: any WallClock = .system,
        report: @escaping @Sendable (Event) -> Void
    ) {
        self.init(target: { target }, interval: interval, maximumBackoff: maximumBackoff, clock: clock, report: report)
    }

    /// Uploads round after round until cancelled: every ``interval``; or, given `written`
    /// (signalled when the store may hold something new), after each write, at most one round
    /// per ``interval`` and at least one per `safetyNet` (for writes nobody signalled, such as
    /// another process's measurements), so that an idle primary is not woken every few
    /// seconds. A failed round is tried again after its backoff either way.
    public func run(wakingOn written: WakeSignal? = nil, safetyNet: Duration = .seconds(900)) async {
        var failures = 0
        while !Task.isCancelled {
            let started = clock.now
            do {
                try await round()
                failures = 0
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                let wait = max(interval, Backoff(first: interval, maximum: maximumBackoff).delay(attempt: failures - 1, random: 0))
                report(.failed(reason: "\(error)", retryIn: wait))
                do { try await clock.sleep(wait) } catch { return }
                continue
            }
            if let written {
                await written.wait(timeout: safetyNet, clock: clock)
                let since = clock.now.timeIntervalSince(started)
                if since < interval.inSeconds {
                    do { try await clock.sleep(.seconds(interval.inSeconds - since)) } catch { return }
                }
            } else {
                do { try await clock.sleep(interval) } catch { return }
            }
        }
    }

    /// One upload of what is new to the round's target: Observations first, then administrations.
    func round() async throws {
        guard let target = try await target() else { return }
        let observations = target.observations, doses = target.doses
        let zone = observations.mapper.timeZone
        let today = CalendarDay.containing(clock.now, in: zone).start(in: zone)
        let (after, takenFrom) = try await observations.start(firstFrom: today)
        var sentObservations = 0
        try await observations.upload(after: after, takenFrom: takenFrom) { sentObservations += $0.observations }
        let doseCursor = try await doses.store.measurements.cursor(doses.cursorName)
        let export = try await AdministrationCollector(store: doses.store, subject: target.doseSubject).collect(after: doseCursor ?? 0)
        // Nothing new writes nothing: a round every few seconds must not commit each time.
        if doseCursor == nil || export.through > doseCursor! { try await doses.upload(export) }
        if sentObservations > 0 || !export.doses.isEmpty {
            report(.sent(
                server: target.server, observations: sentObservations, administrations: export.doses.count,
                cursor: try await observations.store.measurements.cursor(observations.cursorName)))
        }
    }
}
