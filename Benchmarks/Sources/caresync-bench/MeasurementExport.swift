import CareFHIR
import CarePlan
import CarePlanStore
import FHIRTestServer
import Foundation

/// Every sample in a store sent to the FHIR test server (in this process) as R4 Observations,
/// in transactions of 100 with the Patient and each source's Device, as `caresync fhir
/// observations --server` sends them.
enum MeasurementExport {
    struct Figures {
        var observations: Int
        /// The entries of every transaction posted: Observations, the Patient and Devices.
        var resources: Int
        var seconds: Double
    }

    static func run(store: CarePlanStore) async throws -> Figures {
        let server = try await FHIRTestServer()
        var info = try await store.plan.info()
        info.patient = try CarePlan.Patient(name: "Bench Patient", identifier: "caresync-bench")
        let poster = try TransactionPoster(url: server.base, policy: RetryPolicy())
        let uploader = ObservationUploader(store: store, poster: poster, mapper: try ObservationMapper(info: info))
        var observations = 0
        let start = ContinuousClock.now
        do {
            try await uploader.upload(after: 0, takenFrom: nil) { observations += $0.observations }
        } catch {
            await server.stop()
            throw error
        }
        let seconds = start.duration(to: .now).inSeconds
        let resources = server.requests.reduce(0) { $0 + $1.entries }
        await server.stop()
        return Figures(observations: observations, resources: resources, seconds: seconds)
    }
}
