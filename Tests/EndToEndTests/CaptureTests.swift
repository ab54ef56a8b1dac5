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

    @Test(.timeLimit(.minutes(5)))
    func aFullSessionShowsNothingReadableOnTheWire() async throws {
        let namespace = try await CaptureNamespace()
        var failure: (any Error)?
        do {
            try await captureASession(in: namespace)
        } catch {
            failure = error
        }
        await namespace.remove()
        if let failure { throw failure }
    }

    private func captureASession(in namespace: CaptureNamespace) async throws {
        let caresync = CareSyncCommand.executable.path
        let bin = CareSyncCommand.binDirectory
        let store = scratch.path("store.sqlite")
        let capture = scratch.path("session.pcap")

        let plan = try Self.plan(in: scratch)
        let load = try await bounded(caresync, ["plan", "load", plan, "--effective", "2026-11-01", "--store", store])
        try #require(load.status == 0, "plan load: \(load.stderr)")

        // The capture: tcpdump on the namespace's loopback, writing every packet as it comes.
        // -Z root: Debian's tcpdump would otherwise drop to a user that cannot write here.
        let tcpdump = try await namespace.start(
            namespace.tcpdump.path, ["-i", "lo", "-n", "-U", "--immediate-mode", "-Z", "root", "-w", capture])
        defer { tcpdump.terminate() }
        try await #require(
            tcpdump.waitForLine { $0.contains("listening on lo") } != nil,
            "tcpdump did not start capturing in namespace \(namespace.name): \(tcpdump.output)")
        // Positive control, before the session: a plaintext datagram the capture must show.
        let startCanary = "caresync-capture-canary-start-\(UUID().uuidString)"
        try await namespace.sendDatagram(startCanary)

        // The session, every process inside the namespace.
        let primary = try await namespace.start(
            caresync, ["primary", "--store", store, "--port", "0", "--json", "--no-advertise", "--host", "127.0.0.1"])
        defer { primary.terminate() }
        let listening = try await #require(
            primary.waitForLine { $0.contains("\"listening\"") }.flatMap(jsonObject),
            "the primary did not start listening: \(primary.output)")
        let port = try #require(listening["port"] as? Int)
        let planID = try #require(listening["planID"] as? String)
        let endpoint = "127.0.0.1:\(port)"

        var codes: [String] = []
        for (role, simulator) in [("watch", "watch-sim"), ("widget", "widget-sim")] {
            let pair = try await bounded(caresync, ["pair", "--role", role, "--json", "--store", store], in: namespace)
            let code = try #require(
                pair.lines.compactMap(jsonObject).compactMap { $0["code"] as? String }.first,
                "caresync pair --role \(role): exit \(pair.status) \(pair.stdout) \(pair.stderr)")
            codes.append(code)
            let paired = try await bounded(
                bin.appendingPathComponent(simulator).path,
                ["pair", code, "--connect", endpoint, "--state-dir", scratch.path(role), "--json"], in: namespace)
            try #require(paired.status == 0, "\(simulator) pair: exit \(paired.status) \(paired.stdout) \(paired.stderr)")
        }

        // The watch follows, records a scale result, a decimal, a text, and a skip with a reason:
        // each to an activity that asks for it (an intervention takes no value).
        let watch = try await namespace.start(
            bin.appendingPathComponent("watch-sim").path,
            ["--connect", endpoint, "--state-dir", scratch.path("watch"), "--json"])
        defer { watch.terminate() }
        try await waitForContext(watch) { state(in: $0, "journal", 0) == "initial" }
        for command in ["complete pain 0 7", "complete weigh-in 0 \(Self.decimal)",
                        "complete journal 0 \(Self.text)", "skip no-brains 0 \(Self.reason)"] {
            watch.send(command)
        }
        let replies = await watch.waitForLines(count: 4) { line in
            guard let object = jsonObject(line) else { return false }
            return object["type"] as? String == "reply" && object["status"] as? String == "accepted"
        }
        try #require(replies != nil, "the watch's completions were not all accepted: \(watch.output.suffix(20))")

        // The widget completes one with a text of its own; the primary pushes it to the watch.
        let refresh = try await bounded(
            bin.appendingPathComponent("widget-sim").path,
            ["--connect", endpoint, "--state-dir", scratch.path("widget"), "--json",
             "--complete", "journal:1:\(Self.widgetText)"], in: namespace)
        try #require(refresh.status == 0, "widget-sim: exit \(refresh.status) \(refresh.stdout) \(refresh.stderr)")
        try await waitForContext(watch) { state(in: $0, "journal", 1) == "completed" }
        watch.send("list")
        watch.send("quit")
        try #require(await watch.waitForExit(), "the watch did not quit: \(watch.output.suffix(20))")

        // The primary's history holds what the companions sent: it crossed the wire.
        let history = try await bounded(caresync, ["history", "--json", "--store", store], in: namespace)
        try #require(history.status == 0, "history: \(history.stderr)")
        for sent in [Self.decimal, Self.text, Self.reason, Self.widgetText] {
            #expect(history.stdout.contains(sent), "the primary's history lacks \(sent): the session did not carry it")
        }
        await primary.stop(signal: SIGTERM)

        // Positive control after the session, which also proves tcpdump wrote all before it.
        let endCanary = "caresync-capture-canary-end-\(UUID().uuidString)"
        try await namespace.sendDatagram(endCanary)
        try await waitFor("the closing canary in the capture", every: .milliseconds(50), seen: { "tcpdump: \(tcpdump.output)" }) {
            (try? Data(contentsOf: URL(fileURLWithPath: capture)))?.containsBytes(Array(endCanary.utf8)) ?? false
        }
        await tcpdump.stop(signal: SIGINT)
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
        var secrets = try Self.planSecrets(plan)
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

    /// The example plan with two assessments every day, written in `scratch`: a weigh-in in
    /// kilograms for the watch's decimal, a journal twice a day for the watch's and the
    /// widget's texts.
    static func plan(in scratch: Scratch) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: CareSyncCommand.example("zombiecare-plan.json")))
        var plan = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let activities = try #require(plan["activities"] as? [[String: Any]])
        plan["activities"] = activities + [
            ["id": "weigh-in", "kind": "assessment", "title": "Crypt scales", "text": "Weigh yourself at dusk.",
             "result": ["type": "number", "unit": "kg"], "schedule": ["occurrences": 1]],
            ["id": "journal", "kind": "assessment", "title": "Night journal", "text": "What did you crave?",
             "result": ["type": "text"], "schedule": ["occurrences": 2]],
        ]
        let path = scratch.path("capture-plan.json")
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The identifying and health words of the plan at `path`: its title, every activity's
    /// id, title, text, instructions, labels and medication, and every contact's details.
    static func planSecrets(_ path: String) throws -> [(String, [UInt8])] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
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

    /// Runs a short command, inside `namespace` if given.
    fileprivate func bounded(_ executable: String, _ arguments: [String], in namespace: CaptureNamespace? = nil) async throws -> CareSyncCommand.Result {
        let (launch, args) = namespace?.command(executable, arguments) ?? (URL(fileURLWithPath: executable), arguments)
        return try await CareSyncCommand.run(executable: launch, args)
    }

    /// Waits for a context from the watch that satisfies `predicate`.
    fileprivate func waitForContext(_ watch: RunningProcess, where predicate: @escaping @Sendable ([String: Any]) -> Bool) async throws {
        let line = await watch.waitForLine { line in
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
