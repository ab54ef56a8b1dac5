import Foundation
import Clocks
import Waiting
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on loopback for sending bytes no well-behaved peer would. One task
/// may send while another receives: the kernel orders what each does on the descriptor.
public final class RawSocket: @unchecked Sendable {
    /// Why the socket could not connect or send.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
    }

    public func send(_ bytes: [UInt8]) throws {
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw Failure(description: "write failed: errno \(errno)")
        }
    }

    /// Closes the connection now (it is closed when the socket goes, otherwise).
    public func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    public func shutdownWrite() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads until the peer closes, `enough` holds for what arrived so far, or `timeout`
    /// passes (by default the suite's `patience`), on a thread of its own (reads block).
    public func receiveAll(
        timeout: TimeInterval = patience.inSeconds, until enough: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }
    ) async -> (bytes: [UInt8], closed: Bool) {
        let descriptor = descriptor
        return await blocking { Self.receiveAll(descriptor, timeout: timeout, until: enough) }
    }

    private static func receiveAll(
        _ descriptor: Int32, timeout: TimeInterval, until enough: ([UInt8]) -> Bool
    ) -> (bytes: [UInt8], closed: Bool) {
        var interval = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let count = read(descriptor, &chunk, chunk.count)
            if count == 0 { return (received, true) }
            if count > 0 {
                received += chunk[0..<count]
                if enough(received) { return (received, false) }
            }
            if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK { return (received, true) }
        }
        return (received, false)
    }

    deinit { Glibc.close(descriptor) }
}
