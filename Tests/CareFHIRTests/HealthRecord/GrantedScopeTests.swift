@testable import CareFHIR
import Foundation
import Testing

/// What the scopes a server granted allow: SMART v2's letters, v1's read and write, wildcards.
struct GrantedScopeTests {
    func connection(_ scope: String) -> HealthRecordConnection {
        HealthRecordConnection(
            server: "https://fhir.example.org", clientID: "c", tokenEndpoint: "https://fhir.example.org/token", patient: "P1",
            grantedScope: scope, accessToken: "a", connectedAt: Date(timeIntervalSince1970: 0))
    }

    @Test(arguments: [
        ("patient/Observation.c", "c", "Observation", true),
        ("patient/Observation.cruds", "s", "Observation", true),
        ("patient/Observation.rs", "c", "Observation", false),
        ("patient/Observation.rs?category=vital-signs", "r", "Observation", true),
        ("patient/*.c", "c", "Device", true),
        ("user/Device.c", "c", "Device", true),
        ("system/Device.c", "c", "Device", false),
        ("patient/Observation.write", "c", "Observation", true),
        ("patient/Observation.write", "r", "Observation", false),
        ("patient/Observation.read", "s", "Observation", true),
        ("patient/Observation.*", "d", "Observation", true),
        ("patient/ObservationX.c", "c", "Observation", false),
        ("launch/patient openid", "c", "Observation", false),
    ])
    func aScopeAllowsWhatItSays(scope: String, action: String, type: String, allowed: Bool) {
        #expect(connection(scope).allows(Character(action), on: type) == allowed)
    }

    @Test func theUploadNamesWhatItMayNotCreate() {
        #expect(connection("patient/Observation.c patient/Device.c patient/MedicationAdministration.c").uploadsNotGranted.isEmpty)
        #expect(connection("patient/Observation.write patient/Device.write").uploadsNotGranted == ["MedicationAdministration"])
        #expect(connection("patient/*.read").uploadsNotGranted == ["Observation", "Device", "MedicationAdministration"])
    }

    @Test func ordersAreReadAsTheScopesAllow() {
        #expect(connection("patient/MedicationOrder.read").orderResource == "MedicationOrder")
        #expect(connection("patient/MedicationOrder.read patient/MedicationRequest.read").orderResource == "MedicationRequest")
        #expect(connection("patient/MedicationRequest.rs").orderResource == "MedicationRequest")
    }
}
