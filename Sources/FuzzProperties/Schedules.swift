import CarePlan

/// Throws unless `schedule` expands on the days around its start and end, and on
/// days far from them, to counts within its bounds: none before its start or after its
/// end, never more than a day may have.
func requireExpandable(_ schedule: Schedule, file: StaticString = #fileID, line: UInt = #line) throws(PropertyBroken) {
    let near = (-2...16).map { schedule.start.advanced(by: $0) }
    let far = [-1_000_000, 1_000_000, 100_000_000].map { schedule.start.advanced(by: $0) }
    let ends = schedule.end.map { end in (-1...1).map { end.advanced(by: $0) } } ?? []
    for day in near + far + ends {
        let count = schedule.occurrenceCount(on: day)
        try require((0...Schedule.maximumOccurrencesPerDay).contains(count),
                "\(count) occurrences on \(day) of \(schedule)", file: file, line: line)
        try require(count == 0 || (day >= schedule.start && schedule.end.map { day <= $0 } ?? true),
                "\(count) occurrences on \(day), outside \(schedule)", file: file, line: line)
    }
}
