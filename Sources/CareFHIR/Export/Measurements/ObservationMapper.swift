import CarePlan
import CarePlanStore
import Foundation

/// Measurements as R4 resources: the plan's patient, each source as a Device, each sample
/// as an Observation that names both by identifier. Every resource has an identifier of
/// CareSync's (``ExportIdentifiers``), so a conditional create of it again creates nothing.
public struct ObservationMapper: Sendable {
    public let identifiers: ExportIdentifiers
    public let patient: CarePlan.Patient
    public let timeZone: TimeZone

    /// - Throws: ``FHIRExportError/noPatient`` when the plan names nobody: an Observation
    ///   needs its subject.
    public init(info: PlanInfo) throws(FHIRExportError) {
        guard let patient = info.patient else { throw .noPatient }
        identifiers = ExportIdentifiers(planID: info.planID)
        self.patient = patient
        timeZone = info.timeZone ?? .gmt
    }

    /// The patient's identifier: the care team's record number if the plan gives one, else
    /// the plan's id, in CareSync's system for this plan's patient.
    public var patientIdentifier: Identifier {
        Identifier(system: identifiers.patientSystem, value: patient.identifier ?? identifiers.planID)
    }

    public var patientResource: R4.Patient {
        R4.Patient(identifier: [patientIdentifier], name: [.init(text: patient.name)], birthDate: patient.birthDate?.description)
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
            subject: Reference(type: "Patient", identifier: patientIdentifier, display: patient.name),
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

    /// One transaction: the patient, the Devices of the batch's sources, then its
    /// Observations, each a conditional create on its identifier. JSON with sorted keys.
    public func bundle(_ batch: [StoredMeasurement]) throws -> Data {
        var sources: [String: MeasurementSource] = [:]
        for stored in batch { sources[stored.source.id] = stored.source }
        let entries = [TransactionBundle<MeasurementResource>.Entry(.patient(patientResource), identifier: patientIdentifier)]
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
