/// The scopes CareSync asks a patient for in a standalone launch: the patient's context, who
/// signed in, a refresh token, reading their medications and their record, and creating
/// the Observations, Devices and administrations it uploads.
enum LaunchScopes {
    static let context = ["launch/patient", "openid", "fhirUser", "offline_access"]

    /// SMART v2's syntax (`patient/Observation.c`).
    static let v2 = context + [
        "patient/MedicationRequest.rs", "patient/Medication.rs", "patient/Patient.rs",
        "patient/Observation.c", "patient/Device.c", "patient/MedicationAdministration.c",
    ]

    /// SMART v1's, for a server that lists only those; with DSTU2's MedicationOrder.
    static let v1 = context + [
        "patient/MedicationRequest.read", "patient/MedicationOrder.read", "patient/Medication.read", "patient/Patient.read",
        "patient/Observation.write", "patient/Device.write", "patient/MedicationAdministration.write",
    ]

    /// The scope to ask a server with `configuration` for.
    static func asked(of configuration: SMARTConfiguration) -> String {
        (configuration.takesV2Scopes ? v2 : v1).joined(separator: " ")
    }
}
