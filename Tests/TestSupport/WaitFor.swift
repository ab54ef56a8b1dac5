/// What a look at the system under test found: what was waited for, or not yet, and then
/// what was seen instead (which a wait that runs out reports).
public enum Sighting<Value> {
    case found(Value)
    case notYet(_ seen: String)
}

/// A wait that ran out of ``patience``: what it waited for, and what it saw last.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let lastSeen: String
    public var waited = patience

    public var description: String { "waited \(waited) for \(what); saw last: \(lastSeen)" }
}

/// Looks every `interval` until `look` finds what it looks for, and returns that; throws
/// ``WaitTimedOut`` once `within` (the suite's one deadline, ``patience``, unless a fault
/// takes longer to show by design) has passed. For state that no event announces (another
/// process's store, a file, a socket).
public func waitFor<Value>(
    _ what: String, every interval: Duration = .milliseconds(20), within: Duration = patience, _ look: () async throws -> Sighting<Value>
) async throws -> Value {
    let deadline = ContinuousClock.now + within
    while true {
        switch try await look() {
        case .found(let value):
            return value
        case .notYet(let seen):
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what, lastSeen: seen, waited: within) }
        }
        try await Task.sleep(for: interval)
    }
}

/// Waits as ``waitFor(_:every:_:)-(_,_,_)`` until `condition` holds; `seen` describes what
/// was seen instead, for the report of a wait that runs out.
public func waitFor(
    _ what: String, every interval: Duration = .milliseconds(20), within: Duration = patience,
    seen: () async -> String = { "the condition did not hold" }, until condition: () async throws -> Bool
) async throws {
    try await waitFor(what, every: interval, within: within) { () async throws -> Sighting<Void> in
        try await condition() ? .found(()) : .notYet(await seen())
    }
}
