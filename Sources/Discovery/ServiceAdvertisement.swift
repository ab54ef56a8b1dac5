import CDNSSD
import Foundation
import Synchronization

/// A service registered with the mDNS daemon until cancelled.
public final class ServiceAdvertisement: Sendable {
    /// The name the daemon registered: the one asked for, or a renamed one ("… #2") after
    /// a conflict on the network.
    public let name: String
    /// Yields once if the daemon drops the registration (when the daemon restarts, say);
    /// the service is then no longer advertised and must be registered again.
    public let ended: AsyncStream<DiscoveryError>
    private let operation: DNSServiceOperation
    private let box: CallbackBox<@Sendable (String?, DNSServiceErrorType) -> Void>

    private init(
        name: String, ended: AsyncStream<DiscoveryError>, operation: DNSServiceOperation,
        box: CallbackBox<@Sendable (String?, DNSServiceErrorType) -> Void>
    ) {
        self.name = name
        self.ended = ended
        self.operation = operation
        self.box = box
    }

    /// Registers `name` of `type` on `port` with a TXT record, and waits for the daemon to
    /// confirm it (Avahi probes the name first, which takes about 0.75 s). A name already
    /// taken becomes "name #2", "name #3", … as Avahi names alternatives; ``name`` says
    /// which one was registered.
    public static func register(
        name: String, type: String, port: Int, txt: [String: String], timeout: Duration = .seconds(10)
    ) async throws(DiscoveryError) -> ServiceAdvertisement {
        var candidate = name
        for _ in 0..<32 {
            do {
                return try await registerOnce(name: candidate, type: type, port: port, txt: txt, timeout: timeout)
            } catch .failed(let code) where code == DNSServiceErrorType(kDNSServiceErr_NameConflict) {
                candidate = alternativeName(for: candidate)
            }
        }
        throw .failed(code: DNSServiceErrorType(kDNSServiceErr_NameConflict))
    }

    /// Avahi's alternative for a taken name: "Kitchen" → "Kitchen #2" → "Kitchen #3".
    static func alternativeName(for name: String) -> String {
        if let marker = name.range(of: " #", options: .backwards), let number = Int(name[marker.upperBound...]) {
            return name[..<marker.lowerBound] + " #\(number + 1)"
        }
        return name + " #2"
    }

    private static func registerOnce(
        name: String, type: String, port: Int, txt: [String: String], timeout: Duration
    ) async throws(DiscoveryError) -> ServiceAdvertisement {
        let (confirmations, confirm) = AsyncStream<Result<String, DiscoveryError>>.makeStream()
        let (ended, end) = AsyncStream<DiscoveryError>.makeStream()
        let confirmed = Mutex(false)
        let box = CallbackBox<@Sendable (String?, DNSServiceErrorType) -> Void> { registered, error in
            let ok = error == DNSServiceErrorType(kDNSServiceErr_NoError)
            if confirmed.withLock({ $0 }) {
                // After confirmation only a failure is news: the registration is gone.
                if !ok {
                    end.yield(DiscoveryError(code: error))
                    end.finish()
                }
            } else if ok, let registered {
                confirmed.withLock { $0 = true }
                confirm.yield(.success(registered))
            } else {
                confirm.yield(.failure(DiscoveryError(code: error)))
            }
        }
        let record = TXTRecord.encode(txt)
        let operation = try DNSServiceOperation { reference in
            record.withUnsafeBytes { bytes in
                DNSServiceRegister(
                    reference, 0, 0, name, type, nil, nil, UInt16(port).bigEndian, UInt16(bytes.count), bytes.baseAddress,
                    { _, _, error, registered, _, _, context in
                        CallbackBox<@Sendable (String?, DNSServiceErrorType) -> Void>.from(context)
                            .handler(registered.map { String(cString: $0) }, error)
                    }, box.pointer)
            }
        }
        let first = await confirmations.first(within: timeout)
        confirm.finish()
        switch first {
        case .success(let registered):
            return ServiceAdvertisement(name: registered, ended: ended, operation: operation, box: box)
        case .failure(let error):
            operation.cancel()
            throw error
        case nil:
            operation.cancel()
            throw .timedOut("registering \"\(name)\" within \(timeout)")
        }
    }

    /// Withdraws the service.
    public func cancel() {
        operation.cancel()
    }
}

/// DNS-SD TXT records: length-prefixed `key=value` strings.
public enum TXTRecord {
    public static func encode(_ entries: [String: String]) -> [UInt8] {
        entries.sorted { $0.key < $1.key }.flatMap { key, value -> [UInt8] in
            let entry = Array("\(key)=\(value)".utf8.prefix(255))
            return [UInt8(entry.count)] + entry
        }
    }

    public static func decode(_ bytes: some Collection<UInt8>) -> [String: String] {
        var entries: [String: String] = [:]
        var rest = Array(bytes)[...]
        while let length = rest.first {
            let entry = rest.dropFirst().prefix(Int(length))
            rest = rest.dropFirst(1 + Int(length))
            let text = String(decoding: entry, as: UTF8.self)
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if let key = parts.first, !key.isEmpty { entries[String(key)] = parts.count > 1 ? String(parts[1]) : "" }
        }
        return entries
    }
}
