import Foundation

/// The launches waiting for their callback, sealed in the ``TokenVault``'s directory: the
/// care app and `caresync fhir connect` (another process) start them, the care app's
/// callback finishes them. Each change holds a lock on the file, so that neither process
/// loses the other's.
public struct PendingLaunches: Sendable {
    public let vault: TokenVault

    public init(vault: TokenVault) {
        self.vault = vault
    }

    private var path: String { vault.directory + "/health-record.pending" }

    /// Keeps `launch` until its callback, forgetting launches older than their lifetime.
    public func add(_ launch: HealthRecordLaunch, now: Date) throws(HealthRecordError) {
        try change { launches in
            launches.removeAll { $0.hasExpired(at: now) }
            launches.append(launch)
        }
    }

    /// Takes the launch whose state is `state` for its callback in the care app's session
    /// `session`: it cannot be taken twice. `nil` if no launch has that state, it has expired
    /// or ended, or another session started it (it is left for that one: a callback brought
    /// in a wrong session does not spend the right one's). A launch `caresync fhir connect`
    /// started (no session) is taken by any.
    public func take(state: String, session: String?, now: Date) throws(HealthRecordError) -> HealthRecordLaunch? {
        var taken: HealthRecordLaunch?
        try change { launches in
            guard let index = launches.firstIndex(where: { $0.state == state && $0.outcome == nil }),
                  launches[index].session == nil || launches[index].session == session
            else { return }
            if !launches[index].hasExpired(at: now) { taken = launches[index] }
            launches[index].outcome = .finishing
        }
        return taken
    }

    /// Records how the launch with `state` ended, for the command that waits for it.
    public func end(state: String, _ outcome: HealthRecordLaunch.Outcome) throws(HealthRecordError) {
        try change { launches in
            for index in launches.indices where launches[index].state == state { launches[index].outcome = outcome }
        }
    }

    /// How the launch with `state` ended; `nil` while it waits. A launch no longer kept ended
    /// as "forgotten".
    public func outcome(state: String) throws(HealthRecordError) -> HealthRecordLaunch.Outcome? {
        let launches = try read()
        guard let launch = launches.first(where: { $0.state == state }) else { return .failed("the launch was forgotten") }
        return launch.outcome == .finishing ? nil : launch.outcome
    }

    /// Forgets the launch with `state`.
    public func remove(state: String) throws(HealthRecordError) {
        try change { $0.removeAll { $0.state == state } }
    }

    private func read() throws(HealthRecordError) -> [HealthRecordLaunch] {
        try vault.open([HealthRecordLaunch].self, at: path) ?? []
    }

    private func change(_ body: (inout [HealthRecordLaunch]) -> Void) throws(HealthRecordError) {
        try vault.makeDirectory()
        let lock = open(vault.directory + "/health-record.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .vault("cannot lock the pending launches: errno \(errno)") }
        defer { close(lock) }
        flock(lock, LOCK_EX)
        var launches = try read()
        body(&launches)
        try vault.seal(launches, at: path)
    }
}
