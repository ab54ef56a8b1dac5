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

extension Schedule {
    /// The last day with an occurrence: `end`, or the day the `totalCount`-th occurrence
    /// falls on if that is earlier; `nil` for a schedule that never ends.
    public var lastDay: CalendarDay? {
        guard let totalCount else { return end }
        let stride = daysToSkip + 1
        // Every 7 scheduled days visit every weekday the stride reaches: at least one
        // occurrence in each such cycle, or none ever. Past a thousand years it never ends.
        var low = 0
        let (cycles, overflow) = totalCount.multipliedReportingOverflow(by: 7 * min(stride, 400_000))
        var high = overflow ? 400_000 : min(cycles, 400_000)
        func reached(_ elapsed: Int) -> Bool { occurrences(before: start.adding(days: elapsed + 1)) >= totalCount }
        guard reached(high) else { return end }
        while low < high {
            let middle = (low + high) / 2
            if reached(middle) { high = middle } else { low = middle + 1 }
        }
        let last = start.adding(days: low)
        return end.map { min($0, last) } ?? last
    }
}
