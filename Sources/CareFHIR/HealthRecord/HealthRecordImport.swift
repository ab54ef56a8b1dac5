import CareLanguage
import CarePlan
import CarePlanStore
import Foundation

extension HealthRecordConnection {
    /// The resource a server keeps medication orders as: DSTU2's MedicationOrder when the
    /// granted scopes allow reading those and not R4's MedicationRequest.
    var orderResource: String {
        allows("r", on: "MedicationOrder") && !allows("r", on: "MedicationRequest") ? "MedicationOrder" : "MedicationRequest"
    }

    /// Imports the launch patient's medication orders from the connected server into `store`,
    /// as `caresync fhir import` imports a file: the same mapping, refusals and warnings,
    /// effective `today` in the plan's time zone.
    ///
    /// - Throws: ``HealthRecordError/notConnected`` when the server gave no patient;
    ///   ``FHIRError`` when the search fails or its answer is not FHIR.
    public func importMedications(
        into store: CarePlanStore, authorizer: any RequestAuthorizer, today: CalendarDay, device: String
    ) async throws -> FHIRImportReport {
        guard let patient else { throw HealthRecordError.exchangeFailed("the server gave no patient for this sign-in") }
        let client = FHIRClient(base: server, authorizer: authorizer)
        let input = try await client.medicationOrders(patient: patient, resource: orderResource)
        let info = try await store.plan.info()
        let mapper = OrderMapper(today: today, timeZone: info.timeZone ?? .current, routine: info.routine, language: try Language("en"))
        return try await FHIRImporter(mapper: mapper, device: device).run(input, into: store)
    }
}
