/// Completed against scheduled events.
public struct Tally: Sendable, Hashable, Codable {
    public var completed: Int
    public var total: Int

    public init(completed: Int = 0, total: Int = 0) {
        self.completed = completed
        self.total = total
    }

    /// completed / total, or `nil` on a day with nothing scheduled.
    public var fraction: Double? { total == 0 ? nil : Double(completed) / Double(total) }

    public static func + (lhs: Tally, rhs: Tally) -> Tally {
        Tally(completed: lhs.completed + rhs.completed, total: lhs.total + rhs.total)
    }
}

/// How much of one day's plan was done, overall and by kind of activity.
public struct CompletionSummary: Sendable, Hashable {
    public var day: CalendarDay
    public var interventions: Tally
    public var assessments: Tally

    public init(day: CalendarDay, interventions: Tally = Tally(), assessments: Tally = Tally()) {
        self.day = day
        self.interventions = interventions
        self.assessments = assessments
    }

    public var overall: Tally { interventions + assessments }

    /// Summarises the events of one day; as-needed slots are not counted.
    public init(day: CalendarDay, events: [Event]) {
        self.init(day: day)
        for event in events where !event.activity.schedule.asNeeded {
            let done = event.state == .completed ? 1 : 0
            switch event.activity.kind {
            case .intervention: interventions = interventions + Tally(completed: done, total: 1)
            case .assessment: assessments = assessments + Tally(completed: done, total: 1)
            }
        }
    }
}
