import CarePlanStore
import Logging

extension TokenVault {
    /// Where the primary's continuous upload sends for the connection kept now: the health
    /// record's server, authorized by `authorizer` (the person's tokens). Observations and
    /// administrations name the launch's patient; a Patient is created (by identifier) only
    /// when the server gave none. Doses go in DSTU2's shape where the record keeps DSTU2's
    /// MedicationOrders.
    ///
    /// `nil`, and nothing sent, without a connection, once the person must sign in again, or
    /// while the server does not allow creating what the upload sends
    /// (``HealthRecordConnection/uploadsNotGranted``).
    public func uploadTarget(
        store: CarePlanStore, authorizer: any RequestAuthorizer, policy: RetryPolicy = RetryPolicy(), logger: Logger
    ) async throws -> UploadTarget? {
        guard let connection = try connection(), connection.signInNeeded == nil, connection.uploadsNotGranted.isEmpty else { return nil }
        let poster = try TransactionPoster(url: connection.server, policy: policy, authorizer: authorizer, logger: logger)
        let mapper = try ObservationMapper(info: try await store.plan.info(), recordPatient: connection.patient)
        return UploadTarget(
            observations: ObservationUploader(store: store, poster: poster, mapper: mapper),
            doses: AdministrationUploader(store: store, poster: poster, version: connection.orderResource == "MedicationOrder" ? .dstu2 : .r4),
            doseSubject: connection.patient.map { "Patient/\($0)" })
    }
}
