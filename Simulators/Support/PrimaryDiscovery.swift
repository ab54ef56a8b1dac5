import Discovery
import Foundation
import Logging
import SyncNode
import Clocks
import Waiting

/// Finds the primary on the local network with DNS-SD: the one this companion paired with
/// (by fingerprint), or the one the user names, or when pairing the only one there is.
public struct PrimaryDiscovery: Sendable {
    /// The service type every primary advertises.
    public static let serviceType = "_caresync._tcp"

    /// A primary's instance name or node id, from `--primary`.
    public var choice: String?
    /// How long to listen before deciding that every primary has been seen.
    public var listening: Duration = .milliseconds(1500)
    /// How long to look for a primary named or paired with before saying it is not there: one
    /// just started, or a busy daemon, can take longer than ``listening`` to be heard.
    public var searching: Duration = .seconds(10)
    /// How long to keep trying to resolve a service heard, at least. A daemon busy with a
    /// dozen browsers took over 5 s to resolve one (a full test run, DiscoveryScenarioTests);
    /// a daemon that answers costs nothing of this.
    public var resolving: Duration = .seconds(10)
    /// Told which primary was chosen and why, once per choice.
    public var report: @Sendable (String) -> Void
    /// Told of services that were found but could not be resolved.
    public var logger: Logger
    /// Where primaries are heard and resolved.
    public var directory: any ServiceDirectory
    /// The clock the windows above are measured on.
    public var clock: any WallClock

    public init(
        choice: String?, report: @escaping @Sendable (String) -> Void, logger: Logger,
        directory: any ServiceDirectory = DNSServiceDirectory(), clock: any WallClock = .system
    ) {
        self.choice = choice
        self.report = report
        self.logger = logger
        self.directory = directory
        self.clock = clock
    }

    public func locate(knownPrimaryID: String?) async throws -> PrimaryEndpoint {
        let wanted = choice ?? knownPrimaryID
        let primaries = try await browse(
            for: wanted == nil ? listening : searching, stopWhen: { service in wanted.map { Self.matches(service, $0) } ?? false })
        let chosen: ResolvedService
        if let wanted {
            guard let match = primaries.first(where: { Self.matches($0, wanted) }) else {
                throw DiscoveryFailure(description: "primary \"\(wanted)\" is not on the network" + Self.listing(primaries))
            }
            chosen = match
        } else if primaries.count == 1 {
            chosen = primaries[0]
            report("found the only primary on the network: \(chosen.service.name) (\(chosen.txt["node"] ?? "?")) at \(chosen.address):\(chosen.port)")
        } else if primaries.isEmpty {
            throw DiscoveryFailure(description: "no CareSync primary found on the network; give its address with --connect HOST:PORT")
        } else {
            throw DiscoveryFailure(description: "several primaries on the network; choose one with --primary NAME|ID:" + Self.listing(primaries))
        }
        return PrimaryEndpoint(host: chosen.address, port: chosen.port, fingerprint: chosen.txt["fp"])
    }

    /// Every primary heard within `window` and resolved, or fewer if `stopWhen` accepts one
    /// sooner. The window bounds hearing, not resolving: a service heard in time is resolved
    /// as soon as it is heard, beside the others, and again while it does not resolve, for
    /// ``resolving`` or until the window ends, whichever is later. A busy daemon can take
    /// seconds to resolve one, or fail to, which must neither hide the one looked for nor
    /// drop one heard a moment before the window closed.
    private func browse(for window: Duration, stopWhen: @escaping @Sendable (ResolvedService) -> Bool) async throws -> [ResolvedService] {
        let events = try directory.browse(type: Self.serviceType)
        let (steps, sink) = AsyncStream<Step>.makeStream()
        let windowEnd = clock.now.addingTimeInterval(window.inSeconds)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    if case .found(let service) = event { sink.yield(.heard(service)) }
                }
                sink.yield(.windowClosed)  // the browse ended: nothing more to hear
            }
            group.addTask { [clock] in
                try? await clock.sleep(window)  // cancelled: a primary was chosen sooner
                sink.yield(.windowClosed)
            }
            var primaries: [ResolvedService] = []
            var unresolved = 0
            var hearing = true
            listening: for await step in steps {
                switch step {
                case .heard(let service) where hearing:
                    logger.debug("heard a service", metadata: ["service": "\(service.name)"])
                    unresolved += 1
                    let bound = max(resolving, .seconds(windowEnd.timeIntervalSince(clock.now)))
                    group.addTask { [self] in sink.yield(.resolved(await resolve(service, within: bound))) }
                case .heard:
                    continue
                case .resolved(let resolved):
                    unresolved -= 1
                    logger.debug("resolved a service", metadata: [
                        "service": "\(resolved?.service.name ?? "none: gave up")", "role": "\(resolved?.txt["role"] ?? "?")",
                    ])
                    if let resolved, resolved.txt["role"] == "primary" {
                        primaries.append(resolved)
                        if stopWhen(resolved) { break listening }
                    }
                case .windowClosed where hearing:
                    logger.debug("stopped listening", metadata: ["primaries": "\(primaries.count)", "resolving": "\(unresolved)"])
                    hearing = false
                case .windowClosed:
                    continue
                }
                if !hearing && unresolved == 0 { break }
            }
            sink.finish()
            group.cancelAll()
            return primaries
        }
    }

    /// What the browse in ``browse(for:stopWhen:)`` has to act on, in the order it happened.
    private enum Step: Sendable {
        case heard(DiscoveredService)
        case resolved(ResolvedService?)
        case windowClosed
    }

    /// `service` resolved, trying again after each failure, or `nil` after `bound`.
    private func resolve(_ service: DiscoveredService, within bound: Duration) async -> ResolvedService? {
        await withTimeout(bound, clock: clock) { [directory, clock, logger] in
            var pause = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    return try await directory.resolve(service)
                } catch {
                    guard !Task.isCancelled else { return nil }
                    logger.info("a service found on the network did not resolve; trying again", metadata: [
                        "service": "\(service.name)", "error": "\(error)",
                    ])
                }
                try? await clock.sleep(pause)
                pause = min(pause * 2, .seconds(1))
            }
            return nil
        }
    }

    static func matches(_ service: ResolvedService, _ wanted: String) -> Bool {
        service.service.name == wanted || service.txt["node"] == wanted || service.txt["fp"] == wanted
    }

    static func listing(_ primaries: [ResolvedService]) -> String {
        primaries.map { "\n  \($0.service.name)  id \($0.txt["node"] ?? "?")  at \($0.address):\($0.port)" }.joined()
    }
}

/// Why no primary could be chosen.
public struct DiscoveryFailure: Error, CustomStringConvertible {
    public var description: String
}
