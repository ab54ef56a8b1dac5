import NIOSSL
import NodeIdentity

extension NodeIdentity {
    /// The identity's key and certificate as NIOSSL takes them: the one place they are
    /// converted, for the CareSync connections (SyncNode's `NodeTLS`) and a relay's.
    public func tlsCredentials() throws -> (key: NIOSSLPrivateKey, certificate: NIOSSLCertificate) {
        let key = try NIOSSLPrivateKey(bytes: Array(privateKey.serializeAsPEM().pemString.utf8), format: .pem)
        return (key, try NIOSSLCertificate(bytes: certificateDER, format: .der))
    }
}
