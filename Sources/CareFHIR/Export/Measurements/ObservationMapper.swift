import CarePlan
import CarePlanStore
import Foundation

/// Measurements as R4 resources: each source as a Device, each sample as an Observation that
/// names it by identifier, and the patient: the plan's, sent along and named by identifier,
/// or the one a health record gave (``recordPatient``), named by its id and never sent.
/// Every resource sent has an identifier of CareSync's (``ExportIdentifiers``), so a
/// conditional create of it again creates nothing.
public struct ObservationMapper: Sendable {
    public let identifiers: ExportIdentifiers
    /// The plan's patient, if it names one.
    public let patient: CarePlan.Patient?
    /// The id of the patient the server knows (a SMART launch's patient context): the
    /// Observations' subject, `Patient/<id>`.
    public let recordPatient: String?
    public let timeZone: TimeZone

    /// - Throws: ``FHIRExportError/noPatient`` when neither the plan nor the server names
    ///   the patient: an Observation needs its subject.
    public init(info: PlanInfo, recordPatient: String? = nil) throws(FHIRExportError) {
        guard info.patient != nil || recordPatient != nil else { throw .noPatient }
        identifiers = ExportIdentifiers(planID: info.planID)
        patient = info.patient
        self.recordPatient = recordPatient
        timeZone = info.timeZone ?? .gmt
    }

    /// The patient's identifier: the care team's record number if the plan gives one, else
    /// the plan's id, in CareSync's system for this plan's patient.
    public var patientIdentifier: Identifier {
        Identifier(system: identifiers.patientSystem, value: patient?.identifier ?? identifiers.planID)
    }

    /// The Patient a transaction creates (unless the server has it), when the server gave none.
    public var patientResource: R4.Patient? {
        guard recordPatient == nil, let patient else { return nil }
        return R4.Patient(identifier: [patientIdentifier], name: [.init(text: patient.name)], birthDate: patient.birthDate?.description)
    }

    /// The Observations' subject.
    var subject: Reference {
        guard let recordPatient else { return Reference(type: "Patient", identifier: patientIdentifier, display: patient?.name) }
        return Reference(reference: "Patient/\(recordPatient)", display: patient?.name)
    }

    public func device(_ source: MeasurementSource) -> R4.Device {
        R4.Device(
            identifier: [identifiers.source(source.id)], manufacturer: source.manufacturer,
            deviceName: [.init(name: source.name, type: "user-friendly-name")] + (source.model.map { [.init(name: $0, type: "model-name")] } ?? []),
            modelNumber: source.model, type: CodeableConcept(text: source.model ?? source.name),
            version: source.softwareVersion.map { [.init(value: $0)] })
    }

    public func observation(_ stored: StoredMeasurement) -> R4.Observation {
        let sample = stored.measurement
        let coding = VitalSign(sample, wholeDay: coversWholeDay(sample))
        let isInterval = sample.end > sample.start
        var observation = R4.Observation(
            meta: coding.profile.map { R4.Meta(profile: [$0]) }, identifier: [identifiers.measurement(sample.id)],
            category: [coding.categoryConcept], code: CodeableConcept(coding: [coding.code], text: coding.code.display),
            subject: subject,
            effectiveDateTime: isInterval ? nil : FHIRDateTime.string(sample.start, in: timeZone),
            effectivePeriod: isInterval
                ? Period(start: FHIRDateTime.string(sample.start, in: timeZone), end: FHIRDateTime.string(sample.end, in: timeZone)) : nil,
            device: Reference(type: "Device", identifier: identifiers.source(stored.source.id), display: stored.source.name))
        if let diastolic = sample.diastolic {
            observation.component = [
                .init(code: CodeableConcept(coding: [VitalSign.systolic], text: VitalSign.systolic.display),
                      valueQuantity: VitalSign.quantity(sample.value, code: sample.unit)),
                .init(code: CodeableConcept(coding: [VitalSign.diastolic], text: VitalSign.diastolic.display),
                      valueQuantity: VitalSign.quantity(diastolic, code: sample.unit)),
            ]
        } else {
            observation.valueQuantity = VitalSign.quantity(sample.value, code: sample.unit)
        }
        return observation
    }

    /// Steps counted from one midnight to the next in the plan's time zone: a daily total.
    private func coversWholeDay(_ sample: MeasurementSample) -> Bool {
        let day = CalendarDay.containing(sample.start, in: timeZone)
        return sample.start == day.start(in: timeZone) && sample.end == day.adding(days: 1).start(in: timeZone)
    }

    /// One transaction: the patient (unless the server gave it), the Devices of the batch's
    /// sources, then its Observations, each a conditional create on its identifier. JSON
    /// with sorted keys.
    public func bundle(_ batch: [StoredMeasurement]) throws -> Data {
        var sources: [String: MeasurementSource] = [:]
        for stored in batch { sources[stored.source.id] = stored.source }
        let patientEntry = patientResource.map { [TransactionBundle<MeasurementResource>.Entry(.patient($0), identifier: patientIdentifier)] }
        let entries = (patientEntry ?? [])
            + sources.keys.sorted().map { .init(.device(device(sources[$0]!)), identifier: identifiers.source($0)) }
            + batch.map { .init(.observation(observation($0)), identifier: identifiers.measurement($0.measurement.id)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return try encoder.encode(TransactionBundle(entries: entries))
    }
}

/// Any of the resources a measurement export sends, encoded as the resource itself.
public enum MeasurementResource: Sendable, Hashable, Codable {
    case patient(R4.Patient)
    case device(R4.Device)
    case observation(R4.Observation)

    var type: String {
        switch self {
        case .patient: "Patient"
        case .device: "Device"
        case .observation: "Observation"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .patient(let resource): try resource.encode(to: encoder)
        case .device(let resource): try resource.encode(to: encoder)
        case .observation(let resource): try resource.encode(to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .resourceType)
        switch type {
        case "Patient": self = .patient(try R4.Patient(from: decoder))
        case "Device": self = .device(try R4.Device(from: decoder))
        case "Observation": self = .observation(try R4.Observation(from: decoder))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a measurement resource: \(type)"))
        }
    }

    private enum TypeKey: String, CodingKey { case resourceType }
}

extension TransactionBundle<MeasurementResource>.Entry {
    /// A conditional create of `resource`: created only if none of its type has `identifier`.
    init(_ resource: MeasurementResource, identifier: Identifier) {
        self.init(
            resource: resource,
            request: .init(method: "POST", url: resource.type, ifNoneExist: ExportIdentifiers.search(identifier)))
    }
}
