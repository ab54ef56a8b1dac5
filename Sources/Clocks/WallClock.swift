import Foundation

/// The time a part of CareSync lives by: the instant it reads as now, and its sleeps,
/// measured on the same clock. Schedules, reminders, expiries, retries and timeouts all take
/// one, so that a test moves the time they see and the time they wait together, and runs
/// days in milliseconds. Programs use ``SystemClock``.
public protocol WallClock: Sendable {
    /// The instant now.
    var now: Date { get }
    /// Returns once `duration` has passed on this clock; throws `CancellationError` if the
    /// task is cancelled first.
    func sleep(_ duration: Duration) async throws
    /// Whether this is the machine's clock, unmoved: then an operating-system timer (an
    /// event loop's, say) may stand in for ``sleep(_:)``. A clock a test or a demonstration
    /// moves says no.
    var isTheMachines: Bool { get }
}

extension WallClock {
    public var isTheMachines: Bool { false }
}

/// The machine's clock: `Date()` and `Task.sleep`.
public struct SystemClock: WallClock {
    public init() {}

    public var now: Date { Date() }

    public var isTheMachines: Bool { true }

    public func sleep(_ duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

extension WallClock where Self == SystemClock {
    /// The machine's clock.
    public static var system: SystemClock { SystemClock() }
}
