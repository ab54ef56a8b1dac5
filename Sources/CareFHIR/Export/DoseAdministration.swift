/// One outcome of a medication event, ready to become a MedicationAdministration in R4's
/// or DSTU2's shape.
public struct DoseAdministration: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        case given
        case notGiven(reason: String?)
        /// A later outcome of the same event (or a reset) replaced this one.
        case replaced
    }

    /// When the dose was given or due.
    public enum Effective: Sendable, Hashable {
        /// A FHIR `dateTime` with its offset.
        case dateTime(String)
        /// The event's whole day, when neither the recording nor the schedule gives a time.
        case period(Period)
    }

    public var identifier: Identifier
    public var status: Status
    public var medication: CodeableConcept
    /// The order's patient.
    public var subject: LinkedResource
    /// The order: an R4 `MedicationRequest` or a DSTU2 `MedicationOrder`.
    public var order: LinkedResource
    public var effective: Effective
    /// The device that recorded the outcome.
    public var recorder: Reference
    public var dose: Quantity?
    public var dosageText: String?
    /// The revision this entry belongs to: the change that recorded the outcome, or the one
    /// that replaced it. An export up to revision R holds every entry up to R.
    public var revision: Int

    /// The R4 resource: `subject` is a Patient or Group, `request` a MedicationRequest.
    public var r4: MedicationAdministration {
        let effective = effectiveParts
        return MedicationAdministration(
            identifier: [identifier], status: r4Status, statusReason: reasonNotGiven,
            medicationCodeableConcept: medication, subject: subject.reference(to: ["Patient", "Group"], in: .r4),
            effectiveDateTime: effective.dateTime, effectivePeriod: effective.period, performer: [.init(actor: recorder)],
            request: order.reference(to: ["MedicationRequest"], in: .r4),
            dosage: dose == nil && dosageText == nil ? nil : .init(text: dosageText, dose: dose))
    }

    /// The DSTU2 resource: `patient` is a Patient, `prescription` a MedicationOrder.
    public var dstu2: MedicationAdministrationDSTU2 {
        let effective = effectiveParts
        return MedicationAdministrationDSTU2(
            identifier: [identifier], status: status == .replaced ? "entered-in-error" : "completed",
            patient: subject.reference(to: ["Patient"], in: .dstu2),
            prescription: order.reference(to: ["MedicationOrder"], in: .dstu2),
            wasNotGiven: reasonNotGiven != nil, reasonNotGiven: reasonNotGiven,
            effectiveTimeDateTime: effective.dateTime, effectiveTimePeriod: effective.period,
            medicationCodeableConcept: medication, note: recorder.display.map { "Recorded on device \($0)" },
            dosage: dose == nil && dosageText == nil ? nil : .init(text: dosageText, quantity: dose))
    }

    private var r4Status: String {
        switch status {
        case .given: "completed"
        case .notGiven: "not-done"
        case .replaced: "entered-in-error"
        }
    }

    /// Why it was not given; `nil` for a dose given or replaced.
    private var reasonNotGiven: [CodeableConcept]? {
        guard case .notGiven(let reason) = status else { return nil }
        return [CodeableConcept(text: reason ?? "No reason recorded")]
    }

    private var effectiveParts: (dateTime: String?, period: Period?) {
        switch effective {
        case .dateTime(let text): (text, nil)
        case .period(let period): (nil, period)
        }
    }
}
