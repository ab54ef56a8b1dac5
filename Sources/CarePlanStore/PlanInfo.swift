import CarePlan
import Foundation
import GRDB

/// What the store knows of the plan as a whole.
public struct PlanInfo: Sendable, Hashable {
    /// A random id made when the store was created; the plan id nodes exchange.
    public var planID: String
    public var title: String?
    /// Whom the plan is for, if a plan document said.
    public var patient: Patient?
    public var timeZone: TimeZone?
    /// The start day of schedules that do not give their own.
    public var start: CalendarDay?
    /// The patient's routine: the standard one until a plan sets its own.
    public var routine: DailyRoutine = .standard
    /// What insights look for: the plan document's rules, or the standard ones.
    public var insights: InsightRules = .standard
    /// When due events count as missed: the plan document's rule, or the standard one.
    public var missedDose: MissedDosePolicy = .standard
}

/// The plan and the events of some days at one revision.
public struct PlanSnapshot: Sendable {
    public var info: PlanInfo
    public var revision: Int
    public var days: [(day: CalendarDay, events: [Event])]
}

extension PlanStore {
    /// The plan's id, title, time zone and start day.
    public func info() async throws(CarePlanStoreError) -> PlanInfo {
        try await read(Self.planInfo)
    }

    /// The plan's time zone; fails if no plan has been configured.
    public func timeZone() async throws(CarePlanStoreError) -> TimeZone {
        guard let zone = try await info().timeZone else { throw .planNotConfigured }
        return zone
    }

    /// Sets the plan's title, time zone, start day, routine, insight rules and missed-dose
    /// rule (unchanged when `nil`); records a change if any differs.
    @discardableResult
    @_spi(CareCore) public func configure(
        title: String, timeZone: TimeZone, start: CalendarDay? = nil, routine: DailyRoutine? = nil,
        insights: InsightRules? = nil, missedDose: MissedDosePolicy? = nil, device: String
    ) async throws(CarePlanStoreError) -> PlanInfo {
        try await write { db in
            try configurePlan(
                db, title: title, timeZone: timeZone, start: start, routine: routine, insights: insights,
                missedDose: missedDose, patient: nil, device: device)
            return try Self.planInfo(db)
        }
    }

    func configurePlan(
        _ db: Database, title: String, timeZone: TimeZone, start: CalendarDay?, routine: DailyRoutine?,
        insights: InsightRules?, missedDose: MissedDosePolicy?, patient: Patient??, device: String
    ) throws {
        let current = try Self.planInfo(db)
        let start = start ?? current.start
        let routine = routine ?? current.routine
        let insights = insights ?? current.insights
        let missedDose = missedDose ?? current.missedDose
        // `nil` leaves the patient as it is; `.some(nil)` (a document without one) clears it.
        let patient = patient ?? current.patient
        guard current.title != title || current.timeZone != timeZone || current.start != start
            || current.routine != routine || current.insights != insights || current.missedDose != missedDose
            || current.patient != patient else { return }
        try Self.setInfo(db, "title", title)
        try Self.setInfo(db, "timeZone", timeZone.identifier)
        try Self.setInfo(db, "start", start?.description)
        try Self.setInfo(db, "routine", routine == .standard ? nil : try Self.json(routine))
        try Self.setInfo(db, "insights", insights == .standard ? nil : try Self.json(insights))
        try Self.setInfo(db, "missedDose", missedDose == .standard ? nil : try Self.json(missedDose))
        try Self.setInfo(db, "patient", try patient.map { try Self.json($0) })
        _ = try StoreChange(kind: .planConfigured, device: device, committedAt: now()).append(to: db)
    }


    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func setInfo(_ db: Database, _ key: String, _ value: String?) throws {
        if let value {
            try db.run("INSERT INTO plan_info (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        } else {
            try db.run("DELETE FROM plan_info WHERE key = ?", arguments: [key])
        }
    }
}

extension StorePart {
    /// The plan's id, title, time zone and start day, read within a transaction.
    static func planInfo(_ db: Database) throws -> PlanInfo {
        let rows = try db.rows("SELECT key, value FROM plan_info")
        let values = Dictionary(uniqueKeysWithValues: rows.map { ($0["key"] as String, $0["value"] as String) })
        let planID = values["planID"] ?? ""
        return PlanInfo(
            planID: planID, title: values["title"],
            patient: try values["patient"].map { try JSONDecoder().decode(Patient.self, from: Data($0.utf8)) },
            timeZone: values["timeZone"].flatMap(TimeZone.init(identifier:)),
            start: values["start"].flatMap(CalendarDay.init),
            routine: try values["routine"].map { try JSONDecoder().decode(DailyRoutine.self, from: Data($0.utf8)) } ?? .standard,
            insights: try values["insights"].map { try JSONDecoder().decode(InsightRules.self, from: Data($0.utf8)) } ?? .standard,
            missedDose: try values["missedDose"].map { try JSONDecoder().decode(MissedDosePolicy.self, from: Data($0.utf8)) }
                ?? .standard)
    }
}
