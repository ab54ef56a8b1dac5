import Foundation

/// A whole care plan as a document describes it: title, time zone, activities, contacts.
public struct Plan: Sendable, Hashable {
    /// The document format this version of CareSync reads and writes.
    public static let format = "caresync-plan/1"

    public var title: String
    /// Whom the plan is for, if the document says.
    public var patient: Patient?
    /// The start day of schedules that do not give their own.
    public var start: CalendarDay?
    /// The patient's time zone: it decides which calendar day it is.
    public var timeZone: TimeZone
    /// When the patient wakes, eats and sleeps: the times of day parts and untimed doses.
    public var routine: DailyRoutine
    public var activities: [Activity]
    public var contacts: [Contact]
    /// What insights look for: alert thresholds, comparisons, the care team's tips.
    public var insights: InsightRules
    /// When due events count as missed, for household devices' alerts.
    public var missedDose: MissedDosePolicy

    public init(
        title: String, patient: Patient? = nil, start: CalendarDay? = nil, timeZone: TimeZone, routine: DailyRoutine = .standard,
        activities: [Activity], contacts: [Contact] = [], insights: InsightRules = .standard,
        missedDose: MissedDosePolicy = .standard
    ) throws(PlanError) {
        if let duplicate = Self.firstDuplicate(activities.map(\.identifier)) {
            throw .duplicateActivity(duplicate)
        }
        if let duplicate = Self.firstDuplicate(contacts.map(\.identifier)) {
            throw .duplicateContact(duplicate)
        }
        try Self.check(insights, against: activities)
        self.title = title
        self.patient = patient
        self.start = start
        self.timeZone = timeZone
        self.routine = routine
        self.activities = activities
        self.contacts = contacts
        self.insights = insights
        self.missedDose = missedDose
    }

    /// Every activity the insights name exists and is of the kind the rule needs.
    private static func check(_ insights: InsightRules, against activities: [Activity]) throws(PlanError) {
        let kinds = Dictionary(activities.map { ($0.identifier, $0.kind) }, uniquingKeysWith: { first, _ in first })
        let named = insights.ranges.map { ($0.activity, ActivityKind.assessment) }
            + insights.comparisons.flatMap { [($0.intervention, .intervention), ($0.assessment, .assessment)] }
        for (id, kind) in named where kinds[id] != kind {
            throw .insightActivity(id, kind)
        }
        if let duplicate = firstDuplicate(insights.tips.map(\.identifier)) { throw .duplicateTip(duplicate) }
    }

    private static func firstDuplicate(_ ids: [String]) -> String? {
        var seen = Set<String>()
        return ids.first { !seen.insert($0).inserted }
    }
}

public enum PlanError: Error, Hashable, Sendable, CustomStringConvertible {
    case duplicateActivity(String)
    case duplicateContact(String)
    case unknownTimeZone(String)
    case unsupportedFormat(String)
    case insightActivity(String, ActivityKind)
    case duplicateTip(String)

    public var description: String {
        switch self {
        case .duplicateActivity(let id): "the activity id \"\(id)\" is used twice"
        case .duplicateContact(let id): "the contact id \"\(id)\" is used twice"
        case .unknownTimeZone(let name): "unknown time zone \"\(name)\": use an IANA name such as Europe/Vienna"
        case .unsupportedFormat(let format): "unsupported format \"\(format)\": this version reads \(Plan.format)"
        case .insightActivity(let id, let kind): "the insights name \"\(id)\", which is not an \(kind.rawValue) of this plan"
        case .duplicateTip(let id): "the tip id \"\(id)\" is used twice"
        }
    }
}

extension Plan: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case format, title, patient, start, timeZone, routine, activities, contacts, insights, missedDose }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        let format = try c.decodeIfPresent(String.self, forKey: .format) ?? Plan.format
        guard format == Plan.format else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: c, debugDescription: PlanError.unsupportedFormat(format).description)
        }
        let zoneName = try c.decode(String.self, forKey: .timeZone)
        guard let timeZone = TimeZone(identifier: zoneName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeZone, in: c, debugDescription: PlanError.unknownTimeZone(zoneName).description)
        }
        let title = try c.decode(String.self, forKey: .title)
        let patient = try c.decodeIfPresent(Patient.self, forKey: .patient)
        let start = try c.decodeIfPresent(CalendarDay.self, forKey: .start)
        let routine = try c.decodeIfPresent(DailyRoutine.self, forKey: .routine) ?? .standard
        let activities = try c.decodeIfPresent([Activity].self, forKey: .activities) ?? []
        let contacts = try c.decodeIfPresent([Contact].self, forKey: .contacts) ?? []
        let insights = try c.decodeIfPresent(InsightRules.self, forKey: .insights) ?? .standard
        let missedDose = try c.decodeIfPresent(MissedDosePolicy.self, forKey: .missedDose) ?? .standard
        do throws(PlanError) {
            try self.init(
                title: title, patient: patient, start: start, timeZone: timeZone, routine: routine, activities: activities,
                contacts: contacts, insights: insights, missedDose: missedDose)
        } catch {
            let key: CodingKeys = switch error {
            case .duplicateContact: .contacts
            case .insightActivity, .duplicateTip: .insights
            default: .activities
            }
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Plan.format, forKey: .format)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(patient, forKey: .patient)
        try c.encodeIfPresent(start, forKey: .start)
        try c.encode(timeZone.identifier, forKey: .timeZone)
        try c.encode(routine, forKey: .routine)
        try c.encode(activities, forKey: .activities)
        try c.encode(contacts, forKey: .contacts)
        if insights != .standard { try c.encode(insights, forKey: .insights) }
        if missedDose != .standard { try c.encode(missedDose, forKey: .missedDose) }
    }
}
