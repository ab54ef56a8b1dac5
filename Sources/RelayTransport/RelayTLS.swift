import NIOCore
import NIOSSL
import NodeIdentity
import RelayProtocol
import Synchronization

/// TLS to a relay in protocol mode: ALPN `bep-relay`, the client's certificate (the relay
/// derives the client's relay id from it), and the relay's certificate pinned by its id
/// (no certificate authority, no host name).
struct RelayTLS: Sendable {
    /// The protocol name a relay expects in the TLS handshake.
    static let protocolName = "bep-relay"

    private let context: NIOSSLContext

    init(identity: NodeIdentity) throws {
        let (key, certificate) = try identity.tlsCredentials()
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(certificate)]
        configuration.privateKey = .privateKey(key)
        configuration.applicationProtocols = [Self.protocolName]
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = .certificates([])
        context = try NIOSSLContext(configuration: configuration)
    }

    /// A handler that accepts only the relay `pinned` names, keeping the id it saw in `seen`.
    func handler(pinned: RelayDeviceID, seen: PresentedRelay) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
            let id = certificates.first.flatMap { try? $0.toDERBytes() }.map { RelayDeviceID(certificateDER: $0) }
            seen.id.withLock { $0 = id }
            promise.succeed(id == pinned ? .certificateVerified : .failed)
        }
    }
}

/// The relay id a relay's certificate gave, once its TLS handshake has seen it.
final class PresentedRelay: Sendable {
    let id = Mutex<RelayDeviceID?>(nil)
}
