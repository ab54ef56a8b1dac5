import Foundation
import Testing

/// Nothing readable crosses the wire (issue 5): the loopback traffic of a whole session,
/// captured with tcpdump in a network namespace of the test's own, holds no activity
/// title, no result, no skip reason, no patient or plan identifier and no pairing code.
///
/// Needs root (`ip netns`), iproute2 and tcpdump (scripts/install-deps installs them). When
/// any is missing the test fails and says so: a capture test that skips proves nothing.
@Suite(.serialized) struct CaptureTests {
    let scratch = Scratch()

    /// Results only the companions know before they send them: finding them in the primary's
    /// history proves they crossed the wire, so their absence from the capture means something.
    static let decimal = "83.617"
    static let text = "Moonlit-Quince-Tincture"
    static let reason = "Swapped dinner for marrow pudding at the crypt"
    static let widgetText = "Widget-Sorrel-Poultice"

    @Test(.timeLimit(.minutes(3)))
    func aFullSessionShowsNothingReadableOnTheWire() throws {
        let namespace = try CaptureNamespace()
        defer { namespace.remove() }
        let caresync = CareSyncCommand.executable.path
        let bin = CareSyncCommand.binDirectory
        let store = scratch.path("store.sqlite")
        let capture = scratch.path("session.pcap")

        let load = try bounded(caresync, ["plan", "load", CareSyncCommand.example("zombiecare-plan.json"),
                                          "--effective", "2026-11-01", "--store", store])
        try #require(load.status == 0, "plan load: \(load.stderr)")

        // The capture: tcpdump on the namespace's loopback, writing every packet as it comes.
        // -Z root: Debian's tcpdump would otherwise drop to a user that cannot write here.
        let tcpdump = try namespace.start(
            namespace.tcpdump.path, ["-i", "lo", "-n", "-U", "--immediate-mode", "-Z", "root", "-w", capture])
        defer { tcpdump.stop(signal: SIGKILL) }
        try #require(
            tcpdump.waitForLine(timeout: 15) { $0.contains("listening on lo") } != nil,
            "tcpdump did not start capturing in namespace \(namespace.name): \(tcpdump.output)")
        // Positive control, before the session: a plaintext datagram the capture must show.
        let startCanary = "caresync-capture-canary-start-\(UUID().uuidString)"
        try namespace.sendDatagram(startCanary)

        // The session, every process inside the namespace.
        let primary = try namespace.start(
            caresync, ["primary", "--store", store, "--port", "0", "--json", "--no-advertise", "--host", "127.0.0.1"])
        defer { primary.stop(signal: SIGKILL) }
        let listening = try #require(
            primary.waitForLine(timeout: 30) { $0.contains("\"listening\"") }.flatMap(jsonObject),
            "the primary did not start listening: \(primary.output)")
        let port = try #require(listening["port"] as? Int)
        let planID = try #require(listening["planID"] as? String)
        let endpoint = "127.0.0.1:\(port)"

        var codes: [String] = []
        for (role, simulator) in [("watch", "watch-sim"), ("widget", "widget-sim")] {
            let pair = try bounded(caresync, ["pair", "--role", role, "--json", "--store", store], in: namespace)
            let code = try #require(
                pair.lines.compactMap(jsonObject).compactMap { $0["code"] as? String }.first,
                "caresync pair --role \(role): exit \(pair.status) \(pair.stdout) \(pair.stderr)")
            codes.append(code)
            let paired = try bounded(
                bin.appendingPathComponent(simulator).path,
                ["pair", code, "--connect", endpoint, "--state-dir", scratch.path(role), "--json"], in: namespace)
            try #require(paired.status == 0, "\(simulator) pair: exit \(paired.status) \(paired.stdout) \(paired.stderr)")
        }

        // The watch follows, records a scale result, a decimal, a text, and a skip with a reason.
        let watch = try namespace.start(
            bin.appendingPathComponent("watch-sim").path,
            ["--connect", endpoint, "--state-dir", scratch.path("watch"), "--json"])
        defer { watch.stop(signal: SIGKILL) }
        try waitForContext(watch) { state(in: $0, "golden-apple", 0) == "initial" }
        for command in ["complete pain 0 7", "complete golden-apple 0 \(Self.decimal)",
                        "complete golden-apple 1 \(Self.text)", "skip no-brains 0 \(Self.reason)"] {
            watch.send(command)
        }
        let replies = watch.waitForLines(count: 4, timeout: 30) { line in
            guard let object = jsonObject(line) else { return false }
            return object["type"] as? String == "reply" && object["status"] as? String == "accepted"
        }
        try #require(replies != nil, "the watch's completions were not all accepted: \(watch.output.suffix(20))")

        // The widget completes one with a text of its own; the primary pushes it to the watch.
        let refresh = try bounded(
            bin.appendingPathComponent("widget-sim").path,
            ["--connect", endpoint, "--state-dir", scratch.path("widget"), "--json",
             "--complete", "golden-apple:2:\(Self.widgetText)"], in: namespace)
        try #require(refresh.status == 0, "widget-sim: exit \(refresh.status) \(refresh.stdout) \(refresh.stderr)")
        try waitForContext(watch) { state(in: $0, "golden-apple", 2) == "completed" }
        watch.send("list")
        watch.send("quit")
        try #require(watch.waitForExit(timeout: 15), "the watch did not quit: \(watch.output.suffix(20))")

        // The primary's history holds what the companions sent: it crossed the wire.
        let history = try bounded(caresync, ["history", "--json", "--store", store], in: namespace)
        try #require(history.status == 0, "history: \(history.stderr)")
        for sent in [Self.decimal, Self.text, Self.reason, Self.widgetText] {
            #expect(history.stdout.contains(sent), "the primary's history lacks \(sent): the session did not carry it")
        }
        primary.stop(signal: SIGTERM)

        // Positive control after the session, which also proves tcpdump wrote all before it.
        let endCanary = "caresync-capture-canary-end-\(UUID().uuidString)"
        try namespace.sendDatagram(endCanary)
        let deadline = Date().addingTimeInterval(15)
        while !((try? Data(contentsOf: URL(fileURLWithPath: capture)))?.containsBytes(Array(endCanary.utf8)) ?? false) {
            try #require(Date() < deadline, "the capture never showed the closing canary: \(tcpdump.output)")
            Thread.sleep(forTimeInterval: 0.05)
        }
        tcpdump.stop(signal: SIGINT)
        #expect(tcpdump.terminationStatus == 0, "tcpdump: \(tcpdump.output)")

        // What the capture holds.
        let raw = try Data(contentsOf: URL(fileURLWithPath: capture))
        let pcap = try PacketCapture(raw)
        let session = pcap.segments.filter { $0.sourcePort == port || $0.destinationPort == port }
        let streams = pcap.streams(port: port)
        let haystacks = [Array(raw)] + streams.values.map { $0 }

        #expect(haystacks[0].containsBytes(Array(startCanary.utf8)), "the opening canary is not in the capture")
        #expect(haystacks[0].containsBytes(Array(endCanary.utf8)), "the closing canary is not in the capture")

        // Real traffic on the primary's port: the pairings, the watch and the widget
        // connected, each with a TLS handshake first, and the session carried data.
        let connections = session.filter { $0.destinationPort == port && $0.isSYN && !$0.isACK }
        let payload = session.reduce(0) { $0 + $1.payload.count }
        #expect(connections.count >= 4, "\(connections.count) connections to port \(port) captured")
        // (A run here sees 4 connections, about 100 segments and 29 kB of payload.)
        #expect(session.count >= 50, "\(session.count) TCP segments on port \(port) captured")
        #expect(payload >= 15_000, "\(payload) bytes of TCP payload on port \(port) captured")
        for (flow, stream) in streams where !stream.isEmpty {
            // A TLS handshake record (0x16 0x03 …) opens every stream, either way: nothing before it.
            #expect(stream.starts(with: [0x16, 0x03]), "stream \(flow) does not open with a TLS handshake")
        }
        #expect(streams.keys.filter { $0.destinationPort == port }.count >= 4)
        #expect(session.contains { $0.payload.starts(with: [0x17, 0x03, 0x03]) },
                "no TLS application-data record on port \(port)")

        // Nothing readable: the plan's words, the results and reason, the plan id, the codes.
        var secrets = try Self.planSecrets()
        secrets.append(("plan id", Array(planID.utf8)))
        for sent in [Self.decimal, Self.text, Self.reason, Self.widgetText] {
            secrets.append(("result or reason", Array(sent.utf8)))
        }
        // The decimal as protobuf would carry it in the clear: an 8-byte little-endian double.
        secrets.append(("result as a double", withUnsafeBytes(of: Double(Self.decimal)!.bitPattern.littleEndian) { Array($0) }))
        for code in codes {
            secrets.append(("pairing code", Array(code.utf8)))
            secrets.append(("pairing code", Array(code.filter { $0 != "-" }.utf8)))
        }
        for (kind, needle) in secrets {
            let found = haystacks.contains { $0.containsBytes(needle) }
            #expect(!found, "\(kind) \"\(String(decoding: needle, as: UTF8.self))\" is readable in the capture")
        }
    }

    /// The identifying and health words of the example plan: its title, every activity's
    /// id, title, text, instructions, labels and medication, and every contact's details.
    static func planSecrets() throws -> [(String, [UInt8])] {
        let data = try Data(contentsOf: URL(fileURLWithPath: CareSyncCommand.example("zombiecare-plan.json")))
        let plan = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var secrets: [(String, [UInt8])] = []
        func add(_ kind: String, _ value: Any?) {
            guard let text = value as? String, !text.isEmpty else { return }
            secrets.append((kind, Array(text.utf8)))
        }
        add("plan title", plan["title"])
        let activities = try #require(plan["activities"] as? [[String: Any]])
        #expect(activities.count >= 5)
        for activity in activities {
            add("activity title", activity["title"])
            for key in ["id", "text", "instructions"] { add("activity \(key)", activity[key]) }
            if let result = activity["result"] as? [String: Any] {
                add("result label", result["minLabel"])
                add("result label", result["maxLabel"])
            }
            if let medication = activity["medication"] as? [String: Any] {
                for key in ["request", "code", "display"] { add("medication \(key)", medication[key]) }
            }
        }
        let contacts = try #require(plan["contacts"] as? [[String: Any]])
        for contact in contacts {
            for key in ["givenName", "familyName", "title", "phone", "messagingNumber", "email"] {
                add("contact \(key)", contact[key])
            }
        }
        return secrets
    }

    /// Runs a short command, inside `namespace` if given, and kills it if it takes too long.
    fileprivate func bounded(_ executable: String, _ arguments: [String], in namespace: CaptureNamespace? = nil,
                             timeout: TimeInterval = 30) throws -> BoundedResult {
        let (launch, args) = namespace?.command(executable, arguments) ?? (URL(fileURLWithPath: executable), arguments)
        return try BoundedResult.run(launch, args, in: scratch, timeout: timeout)
    }

    /// Waits for a context from the watch that satisfies `predicate`.
    fileprivate func waitForContext(_ watch: RunningProcess, where predicate: @escaping ([String: Any]) -> Bool) throws {
        let line = watch.waitForLine(timeout: 30) { line in
            guard let object = jsonObject(line), object["type"] as? String == "context" else { return false }
            return predicate(object)
        }
        let output = watch.output.suffix(20).joined(separator: "\n")
        try #require(line != nil, "no such context from the watch; output:\n\(output)")
    }
}

private func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The state of `activity` `occurrence` in a watch context line.
private func state(in context: [String: Any], _ activity: String, _ occurrence: Int) -> String? {
    (context["events"] as? [[String: Any]])?.first {
        $0["activity"] as? String == activity && $0["occurrence"] as? Int == occurrence
    }?["state"] as? String
}

/// A network namespace with only a loopback interface, made for one test and removed after it.
private final class CaptureNamespace: Sendable {
    let name = "caresync-capture-\(UUID().uuidString.prefix(8).lowercased())"
    let ip: URL
    let tcpdump: URL

    init() throws {
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
        let add = try CaptureNamespace.ip(ip, ["netns", "add", name])
        guard add.status == 0 else { throw CaptureUnavailable("ip netns add \(name) failed: \(add.stderr)") }
        let up = try CaptureNamespace.ip(ip, ["-n", name, "link", "set", "lo", "up"])
        guard up.status == 0 else {
            remove()
            throw CaptureUnavailable("could not bring up lo in \(name): \(up.stderr)")
        }
    }

    /// `ip netns exec NAME EXECUTABLE ARGS…`: ip enters the namespace and execs the
    /// program, which keeps ip's process id, so signals reach it directly.
    func command(_ executable: String, _ arguments: [String]) -> (URL, [String]) {
        (ip, ["netns", "exec", name, executable] + arguments)
    }

    /// Starts a long-running process inside the namespace.
    func start(_ executable: String, _ arguments: [String]) throws -> RunningProcess {
        let (launch, args) = command(executable, arguments)
        return try RunningProcess(launch, args)
    }

    /// Sends `text` in one plaintext UDP datagram to 127.0.0.1:9 inside the namespace.
    func sendDatagram(_ text: String) throws {
        let (launch, args) = command("bash", ["-c", "printf %s \"$1\" > /dev/udp/127.0.0.1/9", "canary", text])
        let scratch = Scratch()
        let result = try BoundedResult.run(launch, args, in: scratch, timeout: 10)
        guard result.status == 0 else { throw CaptureUnavailable("could not send the canary datagram: \(result.stderr)") }
    }

    /// Ends whatever still runs in the namespace (only this test's processes can be there)
    /// and deletes it.
    func remove() {
        if let pids = try? CaptureNamespace.ip(ip, ["netns", "pids", name]) {
            for pid in pids.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? CaptureNamespace.ip(ip, ["netns", "del", name])
    }

    private static func ip(_ ip: URL, _ arguments: [String]) throws -> BoundedResult {
        try BoundedResult.run(ip, arguments, in: Scratch(), timeout: 15)
    }

    static func find(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return directories.map { URL(fileURLWithPath: $0).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

private struct CaptureUnavailable: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A short command's exit status and output; killed if it outlives its time.
private struct BoundedResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    static func run(_ executable: URL, _ arguments: [String], in scratch: Scratch, timeout: TimeInterval) throws -> BoundedResult {
        let id = UUID().uuidString
        let outPath = scratch.path("\(id).out"), errPath = scratch.path("\(id).err")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer { try? out.close(); try? err.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = done.wait(timeout: .now() + 5)
            throw CaptureUnavailable("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) took longer than \(Int(timeout)) s")
        }
        return BoundedResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

/// The TCP segments of a classic pcap file (what `tcpdump -w` writes) on Ethernet framing,
/// which Linux uses for `lo`.
private struct PacketCapture {
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

private extension Array where Element == UInt8 {
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

private extension Data {
    func containsBytes(_ needle: [UInt8]) -> Bool { [UInt8](self).containsBytes(needle) }
}
