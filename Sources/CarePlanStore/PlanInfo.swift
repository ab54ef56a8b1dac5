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
