import ChildProcess
import Foundation
import Waiting

/// A Mosquitto broker (Debian's `mosquitto`) started for one run: on a free port of
/// 127.0.0.1 only, with a configuration of its own in a temporary directory, without
/// persistence, Nagle's algorithm off as CareSync's sockets have it.
struct MosquittoBroker {
    let port: Int
    private let process: Process
    private let directory: URL

    /// Where Debian installs the broker.
    static let candidates = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]

    /// Starts a broker and waits until it accepts connections. Mosquitto cannot listen on port
    /// 0 and say which port it got, so it is given a free one, which another process may take
    /// first: then it is started again on another, up to three times.
    static func start(timeout: Duration) async throws -> MosquittoBroker {
        guard let executable = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw MosquittoUnavailable(description: "no mosquitto executable (Debian's mosquitto package; scripts/install-deps installs it)")
        }
        _ = try Libmosquitto.api.get()
        var attempt = 1
        while true {
            do {
                return try await start(executable, port: try freeLoopbackPort(), timeout: timeout)
            } catch let failure as BenchmarkFailure where failure.description.contains("Address already in use") && attempt < 3 {
                attempt += 1
            }
        }
    }

    private static func start(_ executable: String, port: Int, timeout: Duration) async throws -> MosquittoBroker {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("mosquitto.conf")
        try """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
            set_tcp_nodelay true
            max_queued_messages 100000
            log_dest stderr
            log_type error

            """.write(to: configuration, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", configuration.path]
        let log = directory.appendingPathComponent("mosquitto.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.runUnblocked()
        let broker = MosquittoBroker(port: port, process: process, directory: directory)
        let deadline = ContinuousClock.now + timeout
        while !(await blocking { canConnect(port: port) }) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                broker.stop()
                throw BenchmarkFailure("mosquitto did not listen on 127.0.0.1:\(port): \(said.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return broker
    }

    /// The broker's process id, for what /proc says of it.
    var pid: String { "\(process.processIdentifier)" }

    /// The broker's resident memory now.
    var residentBytes: Int? {
        residentMemory(of: pid)
    }

    /// Kills the broker: it keeps nothing, so nothing is lost by not asking.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A port of 127.0.0.1 that nothing listens on now (the kernel's choice for port 0). Mosquitto
/// cannot listen on port 0 and say which port it got, so the peer measured beside CareSync
/// alone is given one this way; CareSync's own listeners bind port 0 and report theirs.
private func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchmarkFailure("no socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw BenchmarkFailure("could not find a free loopback port: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether a TCP connection to 127.0.0.1:`port` succeeds now.
private func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
