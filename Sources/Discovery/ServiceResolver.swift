import CDNSSD
import Foundation
import Synchronization

/// A service's address and TXT record.
public struct ResolvedService: Sendable, Hashable {
    public var service: DiscoveredService
    /// The host name the service runs on, such as `kitchen.local.`.
    public var host: String
    /// The host's IPv4 address, looked up with an A query.
    public var address: String
    public var port: Int
    public var txt: [String: String]

    public init(service: DiscoveredService, host: String, address: String, port: Int, txt: [String: String]) {
        self.service = service
        self.host = host
        self.address = address
        self.port = port
        self.txt = txt
    }
}

public enum ServiceResolver {
    /// Resolves `service` to its host, port and TXT record, then the host to an address.
    /// (Avahi's compatibility library has no `DNSServiceGetAddrInfo`: the address comes
    /// from `DNSServiceQueryRecord` for the A record.)
    public static func resolve(_ service: DiscoveredService, timeout: Duration = .seconds(5)) async throws(DiscoveryError) -> ResolvedService {
        typealias Resolution = (host: String, port: Int, txt: [String: String])
        let resolution: Resolution = try await firstAnswer(timeout: timeout, what: "resolving \"\(service.name)\"") { (answer: @escaping @Sendable (Resolution) -> Void) throws(DiscoveryError) in
            let box = CallbackBox<@Sendable (Resolution) -> Void>(answer)
            let operation = try DNSServiceOperation { reference in
                DNSServiceResolve(
                    reference, 0, service.interfaceIndex, service.name, service.type, service.domain,
                    { _, _, _, error, _, host, port, length, txt, context in
                        guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let host else { return }
                        let record = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(length))) } ?? []
                        CallbackBox<@Sendable (Resolution) -> Void>.from(context)
                            .handler((String(cString: host), Int(UInt16(bigEndian: port)), TXTRecord.decode(record)))
                    }, box.pointer)
            }
            return (operation, box)
        }
        let address: String = try await firstAnswer(timeout: timeout, what: "for the address of \(resolution.host)") { (answer: @escaping @Sendable (String) -> Void) throws(DiscoveryError) in
            let box = CallbackBox<@Sendable (String) -> Void>(answer)
            let operation = try DNSServiceOperation { reference in
                DNSServiceQueryRecord(
                    reference, 0, service.interfaceIndex, resolution.host, UInt16(kDNSServiceType_A),
                    UInt16(kDNSServiceClass_IN), { _, _, _, error, _, _, _, length, data, _, context in
                        guard error == DNSServiceErrorType(kDNSServiceErr_NoError), length == 4, let data else { return }
                        let bytes = UnsafeRawBufferPointer(start: data, count: 4)
                        CallbackBox<@Sendable (String) -> Void>.from(context).handler(bytes.map(String.init).joined(separator: "."))
                    }, box.pointer)
            }
            return (operation, box)
        }
        return ResolvedService(service: service, host: resolution.host, address: address, port: resolution.port, txt: resolution.txt)
    }

    /// Starts an operation whose callback delivers answers and returns the first one.
    private static func firstAnswer<Answer: Sendable>(
        timeout: Duration, what: String,
        _ start: (@escaping @Sendable (Answer) -> Void) throws(DiscoveryError) -> (DNSServiceOperation, AnyObject)
    ) async throws(DiscoveryError) -> Answer {
        let (answers, sink) = AsyncStream<Answer>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (operation, box) = try start { sink.yield($0) }
        defer {
            operation.cancel()
            withExtendedLifetime(box) {}
        }
        let first = await answers.first(within: timeout)
        sink.finish()
        guard let first else { throw .timedOut(what) }
        return first
    }
}
