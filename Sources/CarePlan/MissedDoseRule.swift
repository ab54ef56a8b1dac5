/// When an activity's due events count as missed, for the alerts household devices receive.
///
/// An event is missed when its time (its own, else the routine's) plus the grace period has
/// passed, in the plan's time zone, and it has no outcome. The grace period is the
/// activity's own, else the plan's (``MissedDosePolicy``).
public struct MissedDoseRule: Sendable, Hashable {
    /// Whether a missed event of this activity raises an alert. By default interventions
    /// do and assessments do not.
    public var alerts: Bool?
    /// Minutes after the event's time before it counts as missed; `nil`: the plan's.
    public var graceMinutes: Int?
    /// Alerts even in a household device's quiet hours (an anticoagulant, insulin).
    public var critical: Bool

    public init(alerts: Bool? = nil, graceMinutes: Int? = nil, critical: Bool = false) {
        self.alerts = alerts
        self.graceMinutes = graceMinutes
        self.critical = critical
    }

    /// The rule of an activity that says nothing: its kind decides.
    public static let standard = MissedDoseRule()

    /// Whether a missed event of an activity of `kind` raises an alert under this rule.
    public func raisesAlerts(for kind: ActivityKind) -> Bool {
        alerts ?? (kind == .intervention)
    }
}

/// The plan's rule for missed doses: the grace period of activities without their own.
public struct MissedDosePolicy: Sendable, Hashable {
    /// Minutes after an event's time before it counts as missed.
    public var graceMinutes: Int

    public init(graceMinutes: Int = 60) {
        self.graceMinutes = graceMinutes
    }

    public static let standard = MissedDosePolicy()

    /// The grace period of `activity`: its own, else the plan's.
    public func grace(of activity: Activity) -> Int {
        activity.missedDose.graceMinutes ?? graceMinutes
    }
}

/// Grace periods: a minute to a day.
enum GraceMinutes: WholeNumberRange { static let range = 1...1440 }

/// The JSON form, documented in CarePlanDocument.docc/PlanDocuments.md ("Missed doses"):
/// `{"alerts": false}`, `{"graceMinutes": 30, "critical": true}`, each field optional.
extension MissedDoseRule: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case alerts, graceMinutes, critical }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        self.init(
            alerts: try c.decodeIfPresent(Bool.self, forKey: .alerts),
            graceMinutes: try c.decodeIfPresent(WholeNumber<GraceMinutes>.self, forKey: .graceMinutes)?.value,
            critical: try c.decodeIfPresent(Bool.self, forKey: .critical) ?? false)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(alerts, forKey: .alerts)
        try c.encodeIfPresent(graceMinutes, forKey: .graceMinutes)
        if critical { try c.encode(true, forKey: .critical) }
    }
}

/// The JSON form: `{"graceMinutes": 60}`.
extension MissedDosePolicy: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case graceMinutes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.fields(CodingKeys.self)
        self.init(graceMinutes: try c.decodeIfPresent(WholeNumber<GraceMinutes>.self, forKey: .graceMinutes)?.value ?? 60)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(graceMinutes, forKey: .graceMinutes)
    }
}
