import CareFHIR
import CarePlanStore
import Foundation
import LineOutput
import Logging
import ServiceLifecycle
import Clocks
import Waiting

/// The store's new measurements and doses to a FHIR server while the primary serves
/// (``ContinuousUpload``): to `--fhir-server`, or to the health record the patient connected.
/// Each round that sends something or fails is printed as an event.
struct FHIRUploadService: Service {
    let upload: ContinuousUpload
    /// What wakes a round (the primary's store writes); without it, a round every interval.
    let writes: (@Sendable () -> AsyncStream<Void>)?

    init(
        target: @escaping @Sendable () async throws -> UploadTarget?, interval: Duration, clock: any WallClock,
        writes: (@Sendable () -> AsyncStream<Void>)?, json: Bool, logger: Logger
    ) {
        self.writes = writes
        upload = ContinuousUpload(target: target, interval: interval, clock: clock) { event in
            switch event {
            case .sent(let server, let observations, let administrations, let cursor):
                json ? emitJSON(["event": "fhir", "server": .string(server), "observations": .int(observations),
                                 "administrations": .int(administrations), "cursor": cursor.map { .int($0) } ?? .null])
                    : emit("Sent \(Self.counted(observations, "Observation")) and \(Self.counted(administrations, "administration")) to \(server)")
            case .failed(let reason, let retryIn):
                logger.warning("the FHIR upload failed; trying again", metadata: ["reason": "\(reason)", "retryIn": "\(retryIn)"])
                json ? emitJSON(["event": "fhir-failed", "reason": .string(reason),
                                 "retryInSeconds": .double(Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) / 1e18)])
                    : emit("Could not send to the FHIR server: \(reason); trying again in \(retryIn)")
            }
        }
    }

    /// To `url` (`--fhir-server`).
    ///
    /// - Throws: ``FHIRExportError`` for a bad URL or a plan without a patient, before the
    ///   primary starts.
    static func server(
        store: CarePlanStore, url: String, authorizer: (any RequestAuthorizer)?, interval: Duration, clock: any WallClock,
        writes: (@Sendable () -> AsyncStream<Void>)?, json: Bool, logger: Logger
    ) async throws -> FHIRUploadService {
        let poster = try TransactionPoster(url: url, policy: RetryPolicy(), authorizer: authorizer, logger: logger)
        let target = UploadTarget(
            observations: ObservationUploader(store: store, poster: poster, mapper: try ObservationMapper(info: try await store.plan.info())),
            doses: AdministrationUploader(store: store, poster: poster, version: .r4))
        return FHIRUploadService(target: { target }, interval: interval, clock: clock, writes: writes, json: json, logger: logger)
    }

    /// To the health record connected now, if any (``TokenVault/uploadTarget(store:authorizer:policy:logger:)``),
    /// looked up each round: a connection made or ended while the primary runs is followed.
    static func healthRecord(
        store: CarePlanStore, vault: TokenVault, authorizer: HealthRecordAuthorizer, interval: Duration, clock: any WallClock,
        writes: (@Sendable () -> AsyncStream<Void>)?, json: Bool, logger: Logger
    ) -> FHIRUploadService {
        FHIRUploadService(
            target: { try await vault.uploadTarget(store: store, authorizer: authorizer, logger: logger) },
            interval: interval, clock: clock, writes: writes, json: json, logger: logger)
    }

    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    func run() async throws {
        await cancelWhenGracefulShutdown { [upload, writes] in
            guard let writes else { return await upload.run() }
            let written = WakeSignal()
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in writes() { written.signal() }
                }
                await upload.run(wakingOn: written)
                group.cancelAll()
            }
        }
    }
}
