import Discovery
import Foundation
import Logging
import SyncNode

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
    /// Told which primary was chosen and why, once per choice.
    public var report: @Sendable (String) -> Void
    /// Told of services that were found but could not be resolved.
    public var logger: Logger

    public init(choice: String?, report: @escaping @Sendable (String) -> Void, logger: Logger) {
        self.choice = choice
        self.report = report
        self.logger = logger
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

    /// Every primary heard and resolved within `duration`, or fewer if `stopWhen` accepts one
    /// sooner. Each service is resolved as soon as it is heard, beside the others, and again
    /// while it does not resolve: a busy daemon can take seconds to resolve one, or fail to,
    /// which must not hide the one looked for.
    private func browse(for duration: Duration, stopWhen: @escaping @Sendable (ResolvedService) -> Bool) async throws -> [ResolvedService] {
        let events = try ServiceBrowser.browse(type: Self.serviceType)
        let logger = logger
        let (found, sink) = AsyncStream<ResolvedService>.makeStream()
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { resolving in
                    for await event in events {
                        guard case .found(let service) = event else { continue }
                        logger.debug("heard a service", metadata: ["service": "\(service.name)"])
                        resolving.addTask {
                            var pause = Duration.milliseconds(100)
                            while !Task.isCancelled {
                                do {
                                    sink.yield(try await ServiceResolver.resolve(service))
                                    return
                                } catch {
                                    logger.info("a service found on the network did not resolve; trying again", metadata: [
                                        "service": "\(service.name)", "error": "\(error)",
                                    ])
                                }
                                try? await Task.sleep(for: pause)
                                pause = min(pause * 2, .seconds(1))
                            }
                        }
                    }
                }
                sink.finish()  // the browse ended: nothing more to hear
            }
            group.addTask {
                try? await Task.sleep(for: duration)  // cancelled: a primary was chosen sooner
                sink.finish()
            }
            var primaries: [ResolvedService] = []
            for await resolved in found where resolved.txt["role"] == "primary" {
                primaries.append(resolved)
                if stopWhen(resolved) { break }
            }
            group.cancelAll()
            return primaries
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
