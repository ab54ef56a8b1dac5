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

    public var description: String { "waited \(patience) for \(what); saw last: \(lastSeen)" }
}

/// Looks every `interval` until `look` finds what it looks for, and returns that; throws
/// ``WaitTimedOut`` once the suite's one deadline, ``patience``, has passed. For state that
/// no event announces (another process's store, a file, a socket).
public func waitFor<Value>(
    _ what: String, every interval: Duration = .milliseconds(20), _ look: () async throws -> Sighting<Value>
) async throws -> Value {
    let deadline = ContinuousClock.now + patience
    while true {
        switch try await look() {
        case .found(let value):
            return value
        case .notYet(let seen):
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what, lastSeen: seen) }
        }
        try await Task.sleep(for: interval)
    }
}

/// Waits as ``waitFor(_:every:_:)-(_,_,_)`` until `condition` holds; `seen` describes what
/// was seen instead, for the report of a wait that runs out.
public func waitFor(
    _ what: String, every interval: Duration = .milliseconds(20), seen: () async -> String = { "the condition did not hold" },
    until condition: () async throws -> Bool
) async throws {
    try await waitFor(what, every: interval) { () async throws -> Sighting<Void> in
        try await condition() ? .found(()) : .notYet(await seen())
    }
}
