import CarePlan
import CarePlanStore
import Foundation

/// Turns the recorded outcomes of one medication activity into ``DoseAdministration``s.
struct DoseMapper {
    let source: ActivitySource
    let versions: [Int: Activity]
    /// The dosage instruction of each version, if the order has it.
    let dosages: [Int: Dosage]
    let identifiers: ExportIdentifiers
    let timeZone: TimeZone
    /// The order's medication (its own or its contained Medication's code).
    let medication: CodeableConcept?
    /// The order, named by its business identifier or else by CareSync's.
    let order: LinkedResource
    let subject: LinkedResource

    /// `subject`, if given, is the patient every dose names instead of the order's.
    init(
        source: ActivitySource, versions: [ActivityVersion], identifiers: ExportIdentifiers, timeZone: TimeZone, subject: String? = nil
    ) throws {
        self.source = source
        self.versions = Dictionary(uniqueKeysWithValues: versions.map { ($0.version, $0.activity) })
        dosages = self.versions.compactMapValues { OrderMapper.dosage(of: $0, in: source) }
        self.identifiers = identifiers
        self.timeZone = timeZone
        let imported: ImportedOrder?
        do {
            imported = try FHIRInput.parse(source.payload).orders.first
        } catch {
            throw FHIRExportError.invalidOrder(activity: source.activityID, detail: "its stored order cannot be read: \(error)")
        }
        medication = imported?.medication
        order = LinkedResource(source.reference, identifier: imported?.identifier ?? identifiers.order(source.reference))
        guard let subject = subject ?? source.subject else {
            throw FHIRExportError.invalidOrder(activity: source.activityID, detail: "it names no patient (subject)")
        }
        self.subject = LinkedResource(subject)
        guard self.subject.type.map(["Patient", "Group"].contains) ?? true else {
            throw FHIRExportError.invalidOrder(
                activity: source.activityID, detail: "its subject \"\(subject)\" is not a Patient or Group")
        }
    }

    func dose(_ change: StoreChange, replacedBy: Int?) throws -> DoseAdministration {
        guard let event = change.event, let outcome = change.outcome, let version = change.version,
              let activity = versions[version]
        else { throw FHIRExportError.invalidOrder(activity: source.activityID, detail: "revision \(change.revision) is not an outcome") }
        let dosage = dosages[version]
        // Both versions' dosages take a SimpleQuantity: a dose with a comparator ("< 2 tablets") is none.
        let prescribed = dosage?.doseAndRate?.lazy.compactMap(\.doseQuantity).first.flatMap { $0.comparator == nil ? $0 : nil }
        let status: DoseAdministration.Status = replacedBy != nil
            ? .replaced : outcome.state == .completed ? .given : .notGiven(reason: outcome.reason)
        let medication = medication ?? Self.medication(of: activity)
        var order = order
        order.display = medication.displayName
        return DoseAdministration(
            identifier: identifiers.administration(event, revision: change.revision), status: status,
            medication: medication, subject: subject, order: order,
            effective: effective(event, recordedAt: outcome.recordedAt, time: activity.schedule.time(ofOccurrence: event.occurrence)),
            recorder: identifiers.device(change.device),
            dose: outcome.state == .completed ? Self.quantity(outcome.values) ?? prescribed : prescribed,
            dosageText: dosage?.text, revision: replacedBy ?? change.revision)
    }

    /// When it was recorded, if that is on the event's day; otherwise the occurrence's time
    /// that day, or the whole day when the schedule gives no time.
    private func effective(_ event: EventKey, recordedAt: Date, time: TimeOfDay?) -> DoseAdministration.Effective {
        if CalendarDay.containing(recordedAt, in: timeZone) == event.day {
            return .dateTime(FHIRDateTime.string(recordedAt, in: timeZone))
        }
        if let time {
            return .dateTime(FHIRDateTime.string(event.day.date(at: time, in: timeZone), in: timeZone))
        }
        return .period(Period(
            start: FHIRDateTime.string(event.day.start(in: timeZone), in: timeZone),
            end: FHIRDateTime.string(event.day.adding(days: 1).start(in: timeZone), in: timeZone)))
    }

    /// The medication the activity names, for orders that only reference theirs.
    private static func medication(of activity: Activity) -> CodeableConcept {
        guard let link = activity.medication, link.code != nil else { return CodeableConcept(text: activity.title) }
        return CodeableConcept(
            coding: [Coding(system: link.system, code: link.code, display: link.display)],
            text: link.display ?? activity.title)
    }

    /// A dose the patient recorded: the first number with a unit.
    private static func quantity(_ values: [OutcomeValue]) -> Quantity? {
        values.lazy.compactMap { value -> Quantity? in
            guard let unit = value.unit else { return nil }
            switch value.value {
            case .integer(let n): return Quantity(value: Decimal(n), unit: unit)
            case .decimal(let d): return Quantity(value: Decimal(string: String(d)) ?? Decimal(d), unit: unit)
            default: return nil
            }
        }.first
    }
}
