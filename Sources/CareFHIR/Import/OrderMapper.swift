import CarePlan
import CarePlanStore
import Foundation

/// What one order becomes: an activity per dosage instruction (or endings), with warnings.
public struct MappedOrder: Sendable {
    public enum Disposition: String, Sendable, Codable {
        /// Active: its activities are added or updated.
        case scheduled
        /// Stopped, cancelled, completed or entered in error: its activities end.
        case ended
        /// Draft, on hold or unknown: not scheduled (activities from earlier imports end).
        case notActive
    }

    public var order: ImportedOrder
    public var disposition: Disposition
    /// The activities to add or update; empty unless scheduled.
    public var activities: [(activity: Activity, firstDay: CalendarDay)]
    public var warnings: [ImportWarning]
}

/// Maps imported orders to intervention activities, in the patient's time zone and routine.
public struct OrderMapper: Sendable {
    /// The system name activity sources from FHIR carry.
    public static let system = "fhir"

    public var today: CalendarDay
    public var timeZone: TimeZone
    /// The times of day parts (`when`) and of doses an order gives no time.
    public var routine: DailyRoutine
    public var language: DosageLanguage

    public init(today: CalendarDay, timeZone: TimeZone, routine: DailyRoutine = .standard, language: DosageLanguage) {
        self.today = today
        self.timeZone = timeZone
        self.routine = routine
        self.language = language
    }

    /// The activity identifier for an order's key: `rx-KEY`, and `rx-KEY/2`, `rx-KEY/3` …
    /// for its second and later dosage instructions.
    public static func activityID(key: String, dosage index: Int = 0) -> String {
        let clean = String(key.unicodeScalars.map { $0.properties.isWhitespace || $0.properties.generalCategory == .control ? "-" : Character($0) })
        return "rx-" + clean + (index == 0 ? "" : "/\(index + 1)")
    }

    /// The `userInfo` key of an activity's dosage instruction: its index in the order.
    public static let dosageIndexKey = "fhir.dosageInstruction"

    /// The dosage instruction `activity` was made from, read back from its source.
    public static func dosage(of activity: Activity, in source: ActivitySource) -> Dosage? {
        guard let order = try? FHIRInput.parse(source.payload).orders.first else { return nil }
        let index = activity.userInfo[dosageIndexKey].flatMap(Int.init) ?? 0
        return order.dosages.indices.contains(index) ? order.dosages[index] : nil
    }

    public func map(_ order: ImportedOrder) throws(FHIRError) -> MappedOrder {
        switch order.status {
        case "active":
            break
        case "stopped", "cancelled", "completed", "entered-in-error":
            return MappedOrder(order: order, disposition: .ended, activities: [], warnings: [])
        case "on-hold", "draft", "unknown":
            let warning = ImportWarning(.notImported, at: order.path + ".status", "an order that is \(order.status) is not scheduled")
            return MappedOrder(order: order, disposition: .notActive, activities: [], warnings: [warning])
        default:
            throw .invalid(path: order.path + ".status", "unknown status \"\(order.status)\"")
        }
        guard let title = order.medicationName else {
            throw .invalid(path: order.path, "the medication has no name: give a coding display, a text or a reference display")
        }
        let scheduler = DosageScheduler(
            start: order.authoredOn?.day(in: timeZone) ?? today, today: today, timeZone: timeZone, routine: routine)
        let dosages = order.dosages.enumerated().sorted { ($0.element.sequence ?? 0, $0.offset) < ($1.element.sequence ?? 0, $1.offset) }
        var activities: [(Activity, CalendarDay)] = []
        var warnings: [ImportWarning] = []
        let instructions = dosages.isEmpty ? [(0, Dosage())] : dosages.map { ($0.offset, $0.element) }
        for (position, (index, dosage)) in instructions.enumerated() {
            let path = order.path + (dosages.isEmpty ? ".dosageInstruction" : ".dosageInstruction[\(index)]")
            let (schedule, found) = try scheduler.schedule(dosage, at: path)
            warnings += found
            guard let schedule else { continue }
            let coding = order.medication?.coding?.first
            do {
                activities.append((try Activity(
                    identifier: Self.activityID(key: order.key, dosage: position),
                    groupIdentifier: instructions.count > 1 ? Self.activityID(key: order.key) : nil,
                    kind: .intervention, title: title, text: dosage.text,
                    instructions: DosageText(language: language).sentence(for: dosage),
                    tags: ["medication"] + (dosage.isAsNeeded ? ["as-needed"] : []),
                    userInfo: dosages.isEmpty ? [:] : [Self.dosageIndexKey: String(index)],
                    medication: MedicationLink(request: order.reference, system: coding?.system, code: coding?.code, display: title),
                    schedule: schedule), schedule.start))
            } catch {
                throw .invalid(path: path, error.description)
            }
        }
        return MappedOrder(order: order, disposition: .scheduled, activities: activities, warnings: warnings)
    }
}
