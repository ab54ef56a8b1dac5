import CareFHIR
import Testing

/// Stored references read, and written in each version's terms.
struct LinkedResourceTests {
    let rx = Identifier(system: "urn:example:rx", value: "RX-1")

    @Test(arguments: [
        ("MedicationRequest/rx-1", "MedicationRequest"),
        ("Patient/p1/_history/2", "Patient"),
        ("https://fhir.example.org/r4/Patient/p1", "Patient"),
        ("https://fhir.example.org/Patient/p1/_history/2", "Patient"),
        ("urn:uuid:2c1c7d5a-0f7e-4b5e-9a55-6c1a2f0e4b11", nil),
        ("#med1", nil),
        ("https://fhir.example.org/", nil),
    ] as [(String, String?)])
    func aLiteralReferenceNamesItsType(stored: String, type: String?) {
        let linked = LinkedResource(stored)
        #expect(linked.type == type)
        #expect(linked.literal == stored)
    }

    @Test func aConditionalReferenceIsAnIdentifier() {
        let linked = LinkedResource("MedicationOrder?identifier=urn:example:rx|RX-1", identifier: Identifier(value: "other"))
        #expect(linked.type == "MedicationOrder" && linked.literal == nil && linked.identifier == rx)
        #expect(LinkedResource("MedicationOrder?identifier=RX-2").identifier == Identifier(value: "RX-2"))
    }

    @Test func anOrderOfTheTargetVersionIsReferencedLiterally() {
        let r4 = LinkedResource("MedicationRequest/rx-1", identifier: rx, display: "Amlodipine")
        #expect(r4.reference(to: ["MedicationRequest"], in: .r4)
            == Reference(reference: "MedicationRequest/rx-1", display: "Amlodipine"))
        let dstu2 = LinkedResource("MedicationOrder/o1", identifier: rx)
        #expect(dstu2.reference(to: ["MedicationOrder"], in: .dstu2) == Reference(reference: "MedicationOrder/o1"))
    }

    @Test func anOrderOfTheOtherVersionIsNamedByIdentifierInR4AndDescribedInDSTU2() {
        let dstu2Order = LinkedResource("MedicationOrder/o1", identifier: rx, display: "Lisinopril")
        #expect(dstu2Order.reference(to: ["MedicationRequest"], in: .r4)
            == Reference(identifier: rx, display: "Lisinopril"))
        let r4Order = LinkedResource("MedicationRequest/rx-1", identifier: Identifier(value: "RX-1"))
        #expect(r4Order.reference(to: ["MedicationOrder"], in: .dstu2) == Reference(display: "(identifier RX-1)"))
    }

    @Test func aConditionalReferenceIsLogicalInR4AndDescribedInDSTU2() {
        let order = LinkedResource("MedicationOrder?identifier=urn:example:rx|RX-1", display: "Lisinopril")
        #expect(order.reference(to: ["MedicationOrder"], in: .dstu2)
            == Reference(display: "Lisinopril (identifier urn:example:rx|RX-1)"))
        let request = LinkedResource("MedicationRequest?identifier=urn:example:rx|RX-1")
        #expect(request.reference(to: ["MedicationRequest"], in: .r4) == Reference(type: "MedicationRequest", identifier: rx))
    }

    @Test func anUntypedReferenceStaysAndATargetDSTU2LacksIsDescribed() {
        let bundled = LinkedResource("urn:uuid:2c1c7d5a-0f7e-4b5e-9a55-6c1a2f0e4b11")
        #expect(bundled.reference(to: ["Patient"], in: .dstu2) == Reference(reference: bundled.stored))
        #expect(LinkedResource("Group/g1").reference(to: ["Patient"], in: .dstu2) == Reference(display: "Group/g1"))
    }
}
