import CDNSSD
import Foundation

/// A service instance seen on the network.
public struct DiscoveredService: Sendable, Hashable {
    public var name: String
    public var type: String
    public var domain: String
    public var interfaceIndex: UInt32

    public init(name: String, type: String, domain: String = "local.", interfaceIndex: UInt32 = 0) {
        self.name = name
        self.type = type
        self.domain = domain
        self.interfaceIndex = interfaceIndex
    }
}

/// What a browser sees.
public enum BrowseEvent: Sendable, Hashable {
    case found(DiscoveredService)
    case lost(DiscoveredService)
}

public enum ServiceBrowser {
    /// Services of `type` as they appear and disappear, until the consumer stops.
    public static func browse(type: String) throws(DiscoveryError) -> AsyncStream<BrowseEvent> {
        let (events, sink) = AsyncStream<BrowseEvent>.makeStream()
        typealias Handler = @Sendable (BrowseEvent) -> Void
        let box = CallbackBox<Handler> { sink.yield($0) }
        let operation = try DNSServiceOperation { reference in
            DNSServiceBrowse(reference, 0, 0, type, nil, { _, flags, interface, error, name, type, domain, context in
                guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let name, let type, let domain else { return }
                let service = DiscoveredService(
                    name: String(cString: name), type: String(cString: type), domain: String(cString: domain),
                    interfaceIndex: interface)
                let added = flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0
                CallbackBox<Handler>.from(context).handler(added ? .found(service) : .lost(service))
            }, box.pointer)
        }
        sink.onTermination = { _ in operation.cancelWithoutWaiting(keeping: box) }
        return events
    }
}
