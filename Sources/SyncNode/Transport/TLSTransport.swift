import NIOCore
import NIOSSL
import NodeIdentity
import RelayTransport
import Synchronization

/// How a node's connections are secured.
public enum TransportSecurity: Sendable, Hashable {
    /// TLS 1.3, each side presenting its identity's certificate and checking the other's
    /// fingerprint against the one it paired with. The default, and the only choice of the
    /// command-line tools.
    case tls
    /// No encryption: a peer is whoever its Hello says. Only for measuring what TLS costs,
    /// on loopback (`caresync-bench sync --security plaintext`).
    case unencrypted
}

/// The fingerprint of the certificate a peer presented, filled in during the TLS handshake.
final class PeerCertificate: Sendable {
    private let fingerprint = Mutex<String?>(nil)

    var value: String? { fingerprint.withLock { $0 } }

    func record(_ certificates: [NIOSSLCertificate]) -> String? {
        let leaf = certificates.first.flatMap { try? $0.toDERBytes() }.map(NodeIdentity.fingerprint(ofDER:))
        fingerprint.withLock { $0 = leaf }
        return leaf
    }
}

/// The one place a node's TLS configuration is made; the nodes and the peers the tests
/// build (a relay in the middle, an attacker) start from it.
public enum NodeTLS {
    /// TLS 1.3 only, presenting `identity`'s certificate, trusting no certificate authority
    /// and checking no host name: the peer's fingerprint is checked instead, in the
    /// verification callback of the handler that uses it.
    ///
    /// - Parameters:
    ///   - identity: the node's key and certificate.
    ///   - server: whether this side accepts connections (the primary).
    public static func configuration(identity: NodeIdentity, server: Bool) throws -> TLSConfiguration {
        let (key, certificate) = try identity.tlsCredentials()
        var configuration = server
            ? TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
            : TLSConfiguration.makeClientConfiguration()
        // Both sides present their certificate: the companion's is its id at the primary.
        configuration.certificateChain = [.certificate(certificate)]
        configuration.privateKey = .privateKey(key)
        configuration.minimumTLSVersion = .tlsv13
        configuration.certificateVerification = .noHostnameVerification
        // Fingerprints are pinned: no certificate authority is trusted, and the system's
        // bundle is not loaded into every context.
        configuration.trustRoots = .certificates([])
        return configuration
    }
}

/// TLS 1.3 with both sides' self-signed certificates, pinned by fingerprint rather than
/// trusted through a certificate authority (Syncthing's model). NIOSSL calls the custom
/// verification callback because verification is not `.none`; the callback replaces chain
/// and host name checks with the fingerprint comparison. TLS 1.3's CertificateVerify proves
/// that the peer holds the key of the certificate it presented.
struct TLSTransport: Sendable {
    private let context: NIOSSLContext

    /// - Parameter server: whether this side accepts connections (the primary).
    init(identity: NodeIdentity, server: Bool) throws {
        context = try NIOSSLContext(configuration: NodeTLS.configuration(identity: identity, server: server))
    }

    /// The primary's handler: any certificate may complete the handshake (an unpaired one
    /// may only pair); the application layer decides what its fingerprint may do.
    func serverHandler(recording peer: PeerCertificate) -> NIOSSLServerHandler {
        NIOSSLServerHandler(context: context) { certificates, promise in
            promise.succeed(peer.record(certificates) == nil ? .failed : .certificateVerified)
        }
    }

    /// A companion's handler: the primary must present the certificate with `pinned`
    /// fingerprint (any certificate while pairing, when `pinned` is `nil`).
    func clientHandler(pinned: String?, recording peer: PeerCertificate) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
            let fingerprint = peer.record(certificates)
            let accepted = fingerprint != nil && (pinned == nil || fingerprint == pinned)
            promise.succeed(accepted ? .certificateVerified : .failed)
        }
    }
}

/// Treats a TCP close without a TLS close_notify as an ordinary end of stream, as the
/// protocol does: NIOSSL reports it as an `uncleanShutdown` error, which would end the
/// inbound stream as a failure (the primary answered it with `INTERNAL`) and before the
/// frame decoder could report a frame cut short (`MALFORMED_FRAME`). Sits right after the
/// TLS handler; the end of input itself still passes on.
final class TLSEndOfStream: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .uncleanShutdown = error as? NIOSSLError { return }
        context.fireErrorCaught(error)
    }
}
