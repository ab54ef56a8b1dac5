import ChildProcess
import Foundation
import Testing
import Waiting

/// A network namespace with only a loopback interface, made for one test and removed after it.
final class CaptureNamespace: Sendable {
    let name = "caresync-capture-\(UUID().uuidString.prefix(8).lowercased())"
    let ip: URL
    let tcpdump: URL

    init() async throws {
        guard let ip = CaptureNamespace.find("ip") else {
            throw CaptureUnavailable("`ip` (iproute2) is not installed: run scripts/install-deps")
        }
        self.ip = ip
        guard let tcpdump = CaptureNamespace.find("tcpdump") else {
            throw CaptureUnavailable("tcpdump is not installed: run scripts/install-deps")
        }
        self.tcpdump = tcpdump
        guard getuid() == 0 else {
            throw CaptureUnavailable("the capture test makes a network namespace and needs root (uid is \(getuid()))")
        }
        let add: CareSyncCommand.Result
        do {
            add = try await CaptureNamespace.ip(ip, ["netns", "add", name])
        } catch {
            // Cut off, ip may still have made it: leave none behind.
            _ = try? await CaptureNamespace.ip(ip, ["netns", "del", name])
            throw error
        }
        guard add.status == 0 else { throw CaptureUnavailable("ip netns add \(name) failed: \(add.stderr)") }
        let up = try await CaptureNamespace.ip(ip, ["-n", name, "link", "set", "lo", "up"])
        guard up.status == 0 else {
            await remove()
            throw CaptureUnavailable("could not bring up lo in \(name): \(up.stderr)")
        }
    }

    /// `ip netns exec NAME EXECUTABLE ARGS…`: ip enters the namespace and execs the
    /// program, which keeps ip's process id, so signals reach it directly.
    func command(_ executable: String, _ arguments: [String]) -> (URL, [String]) {
        (ip, ["netns", "exec", name, executable] + arguments)
    }

    /// Starts a long-running process inside the namespace.
    func start(_ executable: String, _ arguments: [String]) async throws -> RunningProcess {
        let (launch, args) = command(executable, arguments)
        return try await RunningProcess(launch, args)
    }

    /// Sends `text` in one plaintext UDP datagram to 127.0.0.1:9 inside the namespace.
    func sendDatagram(_ text: String) async throws {
        let (launch, args) = command("bash", ["-c", "printf %s \"$1\" > /dev/udp/127.0.0.1/9", "canary", text])
        let result = try await CareSyncCommand.run(executable: launch, args)
        guard result.status == 0 else { throw CaptureUnavailable("could not send the canary datagram: \(result.stderr)") }
    }

    /// Ends whatever still runs in the namespace (only this test's processes can be there)
    /// and deletes it.
    func remove() async {
        if let pids = try? await CaptureNamespace.ip(ip, ["netns", "pids", name]) {
            for pid in pids.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? await CaptureNamespace.ip(ip, ["netns", "del", name])
    }

    /// The kernel makes a namespace only once it has finished tearing down those deleted
    /// before (other tests' and sandboxes'), which on a loaded machine took over 15 s in CI.
    private static func ip(_ ip: URL, _ arguments: [String]) async throws -> CareSyncCommand.Result {
        try await CareSyncCommand.run(executable: ip, arguments)
    }

    static func find(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return directories.map { URL(fileURLWithPath: $0).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

struct CaptureUnavailable: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The TCP segments of a classic pcap file (what `tcpdump -w` writes) on Ethernet framing,
/// which Linux uses for `lo`.
struct PacketCapture {
    struct Segment {
        var sourcePort: Int
        var destinationPort: Int
        var flags: UInt8
        var payload: [UInt8]

        var isSYN: Bool { flags & 0x02 != 0 }
        var isACK: Bool { flags & 0x10 != 0 }
    }

    struct Flow: Hashable, CustomStringConvertible {
        var sourcePort: Int
        var destinationPort: Int
        var description: String { "\(sourcePort)→\(destinationPort)" }
    }

    var segments: [Segment] = []

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 24 else { throw CaptureUnavailable("the capture file has no pcap header (\(bytes.count) bytes)") }
        func le32(_ at: Int) -> UInt32 { UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24 }
        let magic = le32(0)
        let swapped: Bool
        switch magic {
        case 0xa1b2_c3d4, 0xa1b2_3c4d: swapped = false
        case 0xd4c3_b2a1, 0x4d3c_b2a1: swapped = true
        default: throw CaptureUnavailable(String(format: "not a pcap file (magic %08x)", magic))
        }
        func u32(_ at: Int) -> Int { Int(swapped ? le32(at).byteSwapped : le32(at)) }
        guard u32(20) & 0xffff == 1 else { throw CaptureUnavailable("link type \(u32(20)), not Ethernet") }
        var offset = 24
        while offset + 16 <= bytes.count {
            let length = u32(offset + 8)
            let start = offset + 16
            offset = start + length
            guard offset <= bytes.count, length >= 14 else { break }
            let frame = Array(bytes[start..<offset])
            var ip = 14
            let tcpStart: Int, tcpEnd: Int
            switch Int(frame[12]) << 8 | Int(frame[13]) {
            case 0x0800 where frame.count >= ip + 20 && frame[ip + 9] == 6:
                tcpStart = ip + Int(frame[ip] & 0x0f) * 4
                tcpEnd = min(frame.count, ip + (Int(frame[ip + 2]) << 8 | Int(frame[ip + 3])))
            case 0x86dd where frame.count >= ip + 40 && frame[ip + 6] == 6:
                ip += 40
                tcpStart = ip
                tcpEnd = min(frame.count, ip + (Int(frame[ip - 36]) << 8 | Int(frame[ip - 35])))
            default:
                continue
            }
            guard tcpStart + 20 <= tcpEnd else { continue }
            let payloadStart = tcpStart + Int(frame[tcpStart + 12] >> 4) * 4
            segments.append(Segment(
                sourcePort: Int(frame[tcpStart]) << 8 | Int(frame[tcpStart + 1]),
                destinationPort: Int(frame[tcpStart + 2]) << 8 | Int(frame[tcpStart + 3]),
                flags: frame[tcpStart + 13],
                payload: payloadStart < tcpEnd ? Array(frame[payloadStart..<tcpEnd]) : []))
        }
    }

    /// Each direction of each connection on `port`, its payloads joined in capture order
    /// (loopback neither reorders nor loses), so that a word split across two segments is
    /// still found.
    func streams(port: Int) -> [Flow: [UInt8]] {
        var streams: [Flow: [UInt8]] = [:]
        for segment in segments where segment.sourcePort == port || segment.destinationPort == port {
            streams[Flow(sourcePort: segment.sourcePort, destinationPort: segment.destinationPort), default: []]
                .append(contentsOf: segment.payload)
        }
        return streams
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= count else { return needle.isEmpty }
        return withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                var i = 0
                let last = hay.count - pin.count
                while i <= last {
                    if hay[i] == first && memcmp(hay.baseAddress! + i, pin.baseAddress!, pin.count) == 0 { return true }
                    i += 1
                }
                return false
            }
        }
    }
}

extension Data {
    func containsBytes(_ needle: [UInt8]) -> Bool { [UInt8](self).containsBytes(needle) }
}
