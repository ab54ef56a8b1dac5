extension Schedule {
    /// The number of occurrences on `day`.
    ///
    /// Costs the same for any day, however long ago the schedule started: days
    /// before `day` are counted in closed form, never walked one by one.
    public func occurrenceCount(on day: CalendarDay) -> Int {
        guard day >= start, end.map({ day <= $0 }) ?? true else { return 0 }
        let stride = daysToSkip + 1
        guard start.distance(to: day) % stride == 0 else { return 0 }
        let scheduled = weeklyOccurrences[day.weekday.rawValue]
        guard let totalCount else { return scheduled }
        let remaining = totalCount - occurrences(before: day)
        return max(0, min(scheduled, remaining))
    }

    /// The number of occurrences from `start` up to, not including, `day`,
    /// ignoring `totalCount`.
    func occurrences(before day: CalendarDay) -> Int {
        let elapsed = start.distance(to: day)
        guard elapsed > 0 else { return 0 }
        let stride = daysToSkip + 1
        let scheduledDays = (elapsed + stride - 1) / stride
        // The weekday of the k-th scheduled day repeats with period 7 in k.
        let cycle = (0..<7).map { k in
            weeklyOccurrences[(start.weekday.rawValue + k * stride) % 7]
        }
        let fullCycles = scheduledDays / 7
        return fullCycles * cycle.reduce(0, +) + cycle.prefix(scheduledDays % 7).reduce(0, +)
    }
}
