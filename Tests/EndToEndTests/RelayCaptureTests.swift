import Foundation
import RelayProtocol
import Testing

/// Issue 55: what a relay, and anyone on its wire, sees of a household device following
/// Margaret from away. The whole session (pairing at home, then the device through a real
/// `strelaysrv`: context, standby copy, a missed-dose alert, a shared report, history) runs
/// in a network namespace of the test's own, captured with tcpdump. On the relay's port
/// every byte is TLS but the two headers of each relayed session (the join and its answer);
/// what the device sends into its session reaches the primary byte for byte; neither the
/// patient's name nor an activity title nor the plan's id is anywhere in the capture.
///
/// TLS 1.3 encrypts certificates, so the capture cannot show whose certificate the
/// session's TLS carries; that it is the primary's is what the device's pin checks (a relay
/// ending the TLS itself is refused: ``RelayFaultTests``), and the device connected.
@Suite(.serialized) struct RelayCaptureTests {
    let scratch = Scratch()
    var scene: RelayScene { RelayScene(scratch: scratch) }

    @Test(.timeLimit(.minutes(5)))
    func aRelayedSessionIsTLSEndToEndAndShowsNothingReadable() async throws {
        let namespace = try await CaptureNamespace()
        var failure: (any Error)?
        do {
            try await captureARelayedSession(in: namespace)
        } catch {
            failure = error
        }
        await namespace.remove()
        if let failure { throw failure }
    }

    private func captureARelayedSession(in namespace: CaptureNamespace) async throws {
        let caresync = try await scene.margaretsStore()
        let capture = scratch.path("relayed.pcap")
        let tcpdump = try await namespace.start(
            namespace.tcpdump.path, ["-i", "lo", "-n", "-U", "--immediate-mode", "-Z", "root", "-w", capture])
        defer { tcpdump.terminate() }
        try await #require(tcpdump.waitForLine { $0.contains("listening on lo") } != nil, "tcpdump: \(tcpdump.output)")
        let startCanary = "caresync-relay-canary-start-\(UUID().uuidString)"
        try await namespace.sendDatagram(startCanary)

        // The relay, the primary waiting on it, and a standby household device paired at home.
        let relayPort = 22067
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"), port: relayPort, in: namespace)
        defer { relay.process.terminate() }
        let primary = try await namespace.start(CareSyncCommand.executable.path, [
            "primary", "--store", caresync.store, "--port", "0", "--json", "--no-advertise", "--host", "127.0.0.1",
            "--clock-start", "\(scene.today)T08:30:00Z", "--clock-control", "--relay", relay.address.description,
        ])
        defer { primary.terminate() }
        let listening = try #require(await primary.waitForLine { $0.contains("\"listening\"") }.flatMap(WatchProcess.object), "\(primary.output)")
        let port = try #require(listening["port"] as? Int)
        let planID = try #require(listening["planID"] as? String)
        try #require(await primary.waitForLine(where: RelayScene.joined) != nil, "the primary joined no relay: \(primary.output)")

        let stateDir = scratch.path("household")
        let (pairLaunch, pairArguments) = namespace.command(
            CareSyncCommand.executable.path, ["pair", "--role", "household", "--standby", "--json", "--store", caresync.store])
        let pairing = try await CareSyncCommand.run(executable: pairLaunch, pairArguments)
        let code = try #require(WatchProcess.object(pairing.stdout)?["code"] as? String, "\(pairing.stdout) \(pairing.stderr)")
        let simulator = CareSyncCommand.binDirectory.appendingPathComponent("household-sim").path
        let (launch, arguments) = namespace.command(simulator, ["pair", code, "--connect", "127.0.0.1:\(port)", "--state-dir", stateDir, "--json"])
        let paired = try await CareSyncCommand.run(executable: launch, arguments)
        try #require(paired.status == 0, "household-sim pair: \(paired.stdout) \(paired.stderr)")

        // Away: through the relay only.
        let household = WatchProcess(process: try await namespace.start(simulator, ["--state-dir", stateDir, "--json", "--relay-only"]))
        defer { household.process.terminate() }
        #expect(try await household.waitFor("connected")[0]["way"] as? String == "relay 127.0.0.1")
        try await household.waitFor("context")
        try await household.waitFor("standby")
        try await primary.advanceClock(by: 1800.2)
        try await household.waitFor("alert") { $0["kind"] as? String == "missed" }
        let devices = try await caresync.run("devices", "--json").lines.compactMap(WatchProcess.object)
        let id = try #require(devices.first { $0["role"] as? String == "household" }?["id"] as? String)
        #expect(try await caresync.run("share", "report", "--week", scene.today, "--household", id, "--format", "html").status == 0)
        let report = try await household.waitFor("report")[0]
        let saved = try String(contentsOfFile: try #require(report["path"] as? String), encoding: .utf8)
        #expect(saved.contains("Margaret Hale") && saved.contains("Levothyroxine"), "the report crossed the relay")
        household.send("history")
        try await household.waitFor("history") { $0["kind"] as? String == "outcomeRecorded" || $0["kind"] as? String == "devicePaired" }
        household.send("quit")
        #expect(await household.process.waitForExit())
        await primary.stop(signal: SIGTERM)
        await relay.process.stop(signal: SIGTERM)

        let endCanary = "caresync-relay-canary-end-\(UUID().uuidString)"
        try await namespace.sendDatagram(endCanary)
        try await waitFor("the closing canary in the capture", every: .milliseconds(50)) {
            (try? Data(contentsOf: URL(fileURLWithPath: capture)))?.containsBytes(Array(endCanary.utf8)) ?? false
        }
        await tcpdump.stop(signal: SIGINT)

        let raw = try Data(contentsOf: URL(fileURLWithPath: capture))
        #expect(raw.containsBytes(Array(startCanary.utf8)) && raw.containsBytes(Array(endCanary.utf8)), "the canaries bracket the capture")
        let pcap = try PacketCapture(raw)
        let relayed = pcap.streams(port: relayPort)
        #expect(relayed.keys.count >= 6, "connections to the relay, each way: \(relayed.keys)")

        // Every byte on the relay's port is TLS, but each relayed session's two headers.
        var sessions: [(toRelay: [UInt8], fromRelay: [UInt8], client: Int)] = []
        for (flow, stream) in relayed where !stream.isEmpty {
            let toRelay = flow.destinationPort == relayPort
            let client = toRelay ? flow.sourcePort : flow.destinationPort
            let body: [UInt8]
            if let header = RelaySessionHeader(stream) {
                #expect(header.type == (toRelay ? 3 : 4), "flow \(flow) opens with relay message type \(header.type)")
                body = Array(stream[header.length...])
                if toRelay {
                    let answer = relayed[PacketCapture.Flow(sourcePort: relayPort, destinationPort: client)] ?? []
                    sessions.append((toRelay: body, fromRelay: RelaySessionHeader(answer).map { Array(answer[$0.length...]) } ?? [], client: client))
                }
            } else {
                body = stream
            }
            #expect(TLSRecords.firstMalformed(in: body) == nil,
                    "flow \(flow): not TLS at byte \(TLSRecords.firstMalformed(in: body) ?? 0) of \(body.count): \(body.dropFirst(TLSRecords.firstMalformed(in: body) ?? 0).prefix(16).map { String($0, radix: 16) })")
        }
        // The device's session opens with its ClientHello, and the primary's session gets
        // what it sent as it was sent, and the device what the primary answered: each side
        // what the other wrote, up to where the session ended.
        let device = sessions.filter { $0.toRelay.count > 5 && $0.toRelay[5] == 0x01 }
        let primarySide = sessions.filter { $0.toRelay.count > 5 && $0.toRelay[5] == 0x02 }
        try #require(!device.isEmpty && !primarySide.isEmpty, "\(sessions.count) relayed sessions seen")
        for session in device {
            let peer = primarySide.first { $0.fromRelay.count > 5 && session.toRelay.starts(with: $0.fromRelay) }
            #expect(peer != nil, "what the device sent in its session (\(session.toRelay.count) bytes) reached no primary session unchanged")
            #expect(peer.map { $0.toRelay.starts(with: session.fromRelay) } ?? false, "the primary's answer reached the device changed")
        }
        #expect(device.contains { $0.toRelay.count > 2_000 && $0.fromRelay.count > 20_000 }, "the session carried the report")

        // Nothing readable anywhere: the patient, the plan, its title and its activity.
        let haystacks = [Array(raw)] + relayed.values.map { $0 } + pcap.streams(port: port).values.map { $0 }
        let secrets = ["Margaret Hale", "Margaret", "Margaret's plan", "Levothyroxine", planID]
        for secret in secrets {
            #expect(!haystacks.contains { $0.containsBytes(Array(secret.utf8)) }, "\"\(secret)\" is readable in the capture")
        }
    }
}

/// The header of a relay protocol message opening a session-mode connection (magic, type,
/// length), and how many bytes the whole message takes.
struct RelaySessionHeader {
    let type: UInt32
    let length: Int

    init?(_ stream: [UInt8]) {
        func uint(_ at: Int) -> UInt32 { stream[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        guard stream.count >= 12, uint(0) == RelayMessage.magic else { return nil }
        type = uint(4)
        length = 12 + Int(uint(8))
        guard length <= stream.count else { return nil }
    }
}

/// TLS's record layer, as it crosses a wire.
enum TLSRecords {
    /// The offset of the first byte of `stream` that does not begin a well-formed TLS record
    /// (content type 20-23, version 3.1 or 3.3, at most 2^14 + 256 bytes), or `nil` when the
    /// stream is TLS records from its first byte to its last. The last may be cut short: a
    /// relay passes on what it has read when the other end goes, whole records or not.
    static func firstMalformed(in stream: [UInt8]) -> Int? {
        var offset = 0
        while offset < stream.count {
            let header = Array(stream[offset..<min(offset + 5, stream.count)])
            guard (20...23).contains(header[0]), header.count < 2 || header[1] == 3, header.count < 3 || [1, 3].contains(header[2])
            else { return offset }
            guard header.count == 5 else { return nil }
            let length = Int(header[3]) << 8 | Int(header[4])
            guard length <= 16_640 else { return offset }
            offset += 5 + length
        }
        return nil
    }
}
