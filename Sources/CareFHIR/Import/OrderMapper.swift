import CareLanguage
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
        /// Held whole for review (``holds``): not scheduled (activities from earlier imports end).
        case held
    }

    public var order: ImportedOrder
    public var disposition: Disposition
    /// The activities to add or update; empty unless scheduled.
    public var activities: [(activity: Activity, firstDay: CalendarDay)]
    public var warnings: [ImportWarning]
    /// What is held for review: the whole order (``Disposition/held``), or dosage
    /// instructions of a scheduled one that cannot be scheduled as written.
    public var holds: [ReviewHold] = []
}

/// Maps imported orders to intervention activities, in the patient's time zone and routine.
public struct OrderMapper: Sendable {
    /// The system name activity sources from FHIR carry.
    public static let system = "fhir"

    public var today: CalendarDay
    public var timeZone: TimeZone
    /// The times of day parts (`when`) and of doses an order gives no time.
    public var routine: DailyRoutine
    public var language: Language

    public init(today: CalendarDay, timeZone: TimeZone, routine: DailyRoutine = .standard, language: Language) {
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
        dosage(of: activity, among: dosages(in: source))
    }

    /// The dosage instructions of the order `source` keeps (none if it cannot be read).
    public static func dosages(in source: ActivitySource) -> [Dosage] {
        (try? FHIRInput.parse(source.payload).orders.first?.dosages) ?? []
    }

    /// The one of an order's `dosages` that `activity` was made from.
    public static func dosage(of activity: Activity, among dosages: [Dosage]) -> Dosage? {
        let index = activity.userInfo[dosageIndexKey].flatMap(Int.init) ?? 0
        return dosages.indices.contains(index) ? dosages[index] : nil
    }

    /// What `order` becomes. An order without a date of its own starts on `firstImported`,
    /// the day an earlier import first scheduled it, else on ``today``.
    public func map(_ order: ImportedOrder, firstImported: CalendarDay? = nil) throws(FHIRError) -> MappedOrder {
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
        if let hold = Self.wholeHold(of: order) {
            return MappedOrder(order: order, disposition: .held, activities: [], warnings: [], holds: [hold])
        }
        guard let title = order.medicationName else {
            throw .invalid(path: order.path, "the medication has no name: give a coding display, a text or a reference display")
        }
        let orderStart = order.authoredOn?.day(in: timeZone) ?? firstImported ?? today
        var activities: [(Activity, CalendarDay)] = []
        var warnings: [ImportWarning] = []
        var holds: [ReviewHold] = []
        let steps = DosageSequence(order.dosages)
        // The last day of the numbered step before, where the next one starts.
        var previousEnd: CalendarDay?
        var position = 0
        for step in steps.steps {
            var stepEnd: CalendarDay?
            for (index, dosage) in step.dosages {
                defer { position += 1 }
                let path = order.path + (steps.isEmpty ? ".dosageInstruction" : ".dosageInstruction[\(index)]")
                if step.held {
                    holds.append(ReviewHold(.followsOpenStep, at: path + ".sequence", dosage: index,
                                            activityID: Self.activityID(key: order.key, dosage: position)))
                    continue
                }
                var start = orderStart
                if step.followsPrevious, dosage.timing?.repeat?.boundsPeriod?.start == nil, let previousEnd {
                    start = max(orderStart, previousEnd.adding(days: 1))
                }
                let scheduler = DosageScheduler(start: start, today: today, timeZone: timeZone, routine: routine)
                let (schedule, found) = try scheduler.schedule(dosage, at: path)
                warnings += found
                guard let schedule else { continue }
                if let last = schedule.lastDay { stepEnd = max(stepEnd ?? last, last) }
                let coding = order.medication?.coding?.first
                do {
                    activities.append((try Activity(
                        identifier: Self.activityID(key: order.key, dosage: position),
                        groupIdentifier: steps.count > 1 ? Self.activityID(key: order.key) : nil,
                        kind: .intervention, title: title, text: dosage.text,
                        instructions: DosageText(language: language, timeZone: timeZone).sentence(for: dosage),
                        tags: ["medication"] + (dosage.isAsNeeded ? ["as-needed"] : []),
                        userInfo: steps.isEmpty ? [:] : [Self.dosageIndexKey: String(index)],
                        medication: MedicationLink(request: order.reference, system: coding?.system, code: coding?.code, display: title),
                        schedule: schedule), schedule.start))
                } catch {
                    throw .invalid(path: path, error.description)
                }
            }
            if step.sequence != nil { previousEnd = stepEnd }
        }
        // An order whose every dosage ended before it starts records the past: as a completed one.
        let historical = activities.isEmpty && holds.isEmpty && warnings.contains { $0.kind == .historical }
        return MappedOrder(order: order, disposition: historical ? .ended : .scheduled, activities: activities,
                           warnings: warnings, holds: holds)
    }

    /// The hold of an order that must not be scheduled at all as CareSync reads it: one with
    /// a modifier extension, or with a timing given as text alone.
    static func wholeHold(of order: ImportedOrder) -> ReviewHold? {
        if let first = order.modifierExtensions.first {
            let urls = order.modifierExtensions.map { $0.url ?? "without a url" }.joined(separator: ", ")
            return ReviewHold(.modifierExtension, at: first.path, activityID: activityID(key: order.key), detail: urls)
        }
        for (index, dosage) in order.dosages.enumerated() {
            if let text = dosage.timing?.code?.textOnly {
                return ReviewHold(.timingText, at: order.path + ".dosageInstruction[\(index)].timing.code.text",
                                  activityID: activityID(key: order.key), detail: text)
            }
        }
        return nil
    }
}
