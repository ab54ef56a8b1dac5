import Foundation

/// A relay, as its `relay://HOST:PORT/?id=ID` URI names it (the URI `strelaysrv` prints; the
/// other query items it adds, such as `pingInterval`, are read past): where it listens, and
/// the id its certificate must have.
public struct RelayAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var id: RelayDeviceID

    public init(host: String, port: Int, id: RelayDeviceID) {
        self.host = host
        self.port = port
        self.id = id
    }

    /// Reads a `relay://` URI.
    public init(_ uri: String) throws(RelayAddressError) {
        guard let components = URLComponents(string: uri), components.scheme == "relay" else { throw .notARelayURI(uri) }
        guard let host = components.host, !host.isEmpty, let port = components.port, (1...65_535).contains(port) else {
            throw .noHostAndPort(uri)
        }
        guard let text = components.queryItems?.first(where: { $0.name == "id" })?.value else { throw .noID(uri) }
        do {
            id = try RelayDeviceID(text)
        } catch {
            throw .badID(uri, error)
        }
        // An IPv6 host is kept without the brackets the URI needs around it.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
    }

    public var description: String {
        let host = host.contains(":") ? "[\(host)]" : host
        return "relay://\(host):\(port)/?id=\(id)"
    }
}

/// Why text is not a relay's URI.
public enum RelayAddressError: Error, Equatable, CustomStringConvertible {
    case notARelayURI(String)
    case noHostAndPort(String)
    case noID(String)
    case badID(String, RelayDeviceIDError)

    public var description: String {
        switch self {
        case .notARelayURI(let uri): "\"\(uri)\" is not a relay's URI (relay://HOST:PORT/?id=ID)"
        case .noHostAndPort(let uri): "\"\(uri)\" names no host and port"
        case .noID(let uri): "\"\(uri)\" names no relay id (?id=): the relay could not be told from another"
        case .badID(let uri, let error): "\"\(uri)\": \(error)"
        }
    }
}
