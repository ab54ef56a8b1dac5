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
        // The weekday of the k-th scheduled day repeats with period 7 in k: count one
        // cycle of seven scheduled days, then the days left over.
        let firstWeekday = start.weekday.rawValue
        let leftOver = scheduledDays % 7
        var perCycle = 0
        var inLeftOver = 0
        for k in 0..<7 {
            let count = weeklyOccurrences[(firstWeekday + k * stride) % 7]
            perCycle += count
            if k < leftOver { inLeftOver += count }
        }
        return scheduledDays / 7 * perCycle + inLeftOver
    }
}
