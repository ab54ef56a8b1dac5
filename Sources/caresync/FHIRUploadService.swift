import CareFHIR
import CarePlanStore
import Foundation
import LineOutput
import Logging
import ServiceLifecycle
import Waiting

/// `caresync primary --fhir-server URL`: the store's new measurements and doses to a FHIR
/// server while the primary serves (``ContinuousUpload``), each round that sends something
/// or fails printed as an event.
struct FHIRUploadService: Service {
    let upload: ContinuousUpload

    /// - Throws: ``FHIRExportError`` for a bad URL or a plan without a patient, before the
    ///   primary starts.
    init(
        store: CarePlanStore, url: String, authorizer: (any RequestAuthorizer)?, interval: Duration, clock: any WallClock, json: Bool,
        logger: Logger
    ) async throws {
        let poster = try TransactionPoster(url: url, policy: RetryPolicy(), authorizer: authorizer, logger: logger)
        let mapper = try ObservationMapper(info: try await store.plan.info())
        upload = ContinuousUpload(
            observations: ObservationUploader(store: store, poster: poster, mapper: mapper),
            doses: AdministrationUploader(store: store, poster: poster, version: .r4), interval: interval, clock: clock
        ) { event in
            switch event {
            case .sent(let observations, let administrations, let cursor):
                json ? emitJSON(["event": "fhir", "server": .string(url), "observations": .int(observations),
                                 "administrations": .int(administrations), "cursor": cursor.map { .int($0) } ?? .null])
                    : emit("Sent \(Self.counted(observations, "Observation")) and \(Self.counted(administrations, "administration")) to \(url)")
            case .failed(let reason, let retryIn):
                logger.warning("the FHIR upload failed; trying again", metadata: ["server": "\(url)", "reason": "\(reason)", "retryIn": "\(retryIn)"])
                json ? emitJSON(["event": "fhir-failed", "server": .string(url), "reason": .string(reason),
                                 "retryInSeconds": .double(Double(retryIn.components.seconds) + Double(retryIn.components.attoseconds) / 1e18)])
                    : emit("Could not send to \(url): \(reason); trying again in \(retryIn)")
            }
        }
    }

    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await upload.run() }
    }
}
