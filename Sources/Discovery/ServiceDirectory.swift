/// Where services are heard and resolved: DNS-SD through the mDNS daemon in programs
/// (``DNSServiceDirectory``), a scripted network in unit tests of what is built on it.
public protocol ServiceDirectory: Sendable {
    /// Services of `type` as they appear and disappear, until the consumer stops.
    func browse(type: String) throws(DiscoveryError) -> AsyncStream<BrowseEvent>
    /// `service`'s address and TXT record; ends when its task is cancelled.
    func resolve(_ service: DiscoveredService) async throws(DiscoveryError) -> ResolvedService
}

/// The mDNS daemon's directory: ``ServiceBrowser`` and ``ServiceResolver``.
public struct DNSServiceDirectory: ServiceDirectory {
    public init() {}

    public func browse(type: String) throws(DiscoveryError) -> AsyncStream<BrowseEvent> {
        try ServiceBrowser.browse(type: type)
    }

    public func resolve(_ service: DiscoveredService) async throws(DiscoveryError) -> ResolvedService {
        try await ServiceResolver.resolve(service)
    }
}
