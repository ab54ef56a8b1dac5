import Foundation
import NodeIdentity
import SyncProtocol
import Testing

/// A `caresync primary` keeps the rules of Protocol/README.md on established connections and
/// when they end, checked from outside: raw frames over TLS from a peer holding a paired
/// watch's identity (or a stranger's).
@Suite(.serialized) struct ProtocolConformanceTests {
    let scratch = Scratch()

    /// The frames of Protocol/vectors/frames.json.
    struct Vectors: Decodable {
        struct Vector: Decodable {
            var name: String
            var hex: String
            var error: String?

            var bytes: [UInt8] {
                stride(from: 0, to: hex.count, by: 2).map {
                    UInt8(hex.dropFirst($0).prefix(2), radix: 16)!
                }
            }
        }

        var valid: [Vector]
        var invalid: [Vector]

        static func load() throws -> Vectors {
            let url = CareSyncCommand.repository.appendingPathComponent("Protocol/vectors/frames.json")
            return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
        }
    }

    /// A primary on the example plan, and the identity of a watch paired with it.
    func primaryWithPairedWatch() async throws -> (CareSyncCommand, PrimaryProcess, NodeIdentity) {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        return await (caresync, primary, try pairedWatch(caresync, primary))
    }

    /// Pairs a watch with `primary` through `watch-sim pair` and returns its identity.
    func pairedWatch(_ caresync: CareSyncCommand, _ primary: PrimaryProcess) async throws -> NodeIdentity {
        let state = scratch.path("watch")
        try await pairSimulator(store: caresync.store, locate: ["--connect", primary.endpoint], stateDir: state)
        return try NodeIdentity.loadOrCreate(in: state, name: "unused")
    }

    func hello(_ identity: NodeIdentity) -> Caresync_V1_Envelope {
        .with {
            $0.hello = .with {
                $0.protocolVersions = [1]
                $0.nodeID = identity.fingerprint
                $0.role = .watch
            }
        }
    }

    /// A peer with `identity` past its Hello: the HelloAck and the first context have arrived.
    func established(_ primary: PrimaryProcess, _ identity: NodeIdentity) async throws -> TLSPeer {
        let peer = try await TLSPeer(port: primary.port, identity: identity)
        try await peer.send(hello(identity))
        _ = try await peer.waitForFrame { $0.applicationContext.revision > 0 }  // a context after the Hello
        return peer
    }

    /// Waits until the peer has the primary's close, and returns the frames that arrived
    /// after the first `known` ones.
    func framesUntilClosed(_ peer: TLSPeer, after known: Int = 0) async throws -> [Caresync_V1_Envelope] {
        let answer = await peer.receiveAll()
        #expect(answer.closed, "the primary did not close the connection")
        return Array(try TLSPeer.frames(in: answer.bytes).dropFirst(known))
    }

    /// Section 8, ESTABLISHED: a length above the limit, an undecodable payload, a second
    /// Hello and every message the primary sends (each sent by a companion) get their
    /// fatal Error, and only then the close; so does a ReportReceived from a watch, which never
    /// accepted `report`. Frames from the vectors.
    @Test func everyViolationAfterTheHelloGetsItsErrorThenAClose() async throws {
        let (_, primary, watch) = try await primaryWithPairedWatch()
        let vectors = try Vectors.load()
        var cases: [(name: String, bytes: [UInt8], code: Caresync_V1_ErrorCode, message: (String) -> Bool)] = [
            ("oversized-length", vectors.invalid.first { $0.name == "oversized-length" }!.bytes, .payloadTooLarge,
             { $0 == "frame of 1048577 bytes announced; the limit is 1048576 bytes" }),
            ("garbage", vectors.invalid.first { $0.name == "garbage" }!.bytes, .malformedFrame,
             { $0.hasPrefix("not a protobuf Envelope (") }),
        ]
        let notFromCompanions: Set = ["hello", "hello_ack", "application_context", "context_delta", "completion_reply", "reminder", "pair_request", "pair_accept", "history_page", "report_chunk", "measurement_receipt", "dose_alerts", "standby_pages", "backup_status"]
        for vector in vectors.valid {
            let name = try #require(try TLSPeer.frames(in: vector.bytes).first).bodyName
            guard notFromCompanions.contains(name) else { continue }
            cases.append((vector.name, vector.bytes, .protocolViolation, { $0 == "unexpected \(name) from a companion" }))
        }
        // A watch never accepted `report`: it has no report to acknowledge.
        cases.append(("report-received", vectors.valid.first { $0.name == "report-received" }!.bytes, .protocolViolation,
                      { $0 == "unexpected report_received without the report feature" }))
        // Nor did it offer `measurements` in this Hello.
        cases.append(("measurement-batch", vectors.valid.first { $0.name == "measurement-batch" }!.bytes, .protocolViolation,
                      { $0 == "unexpected measurement_batch without the measurements feature" }))
        // Nor is it a standby device: it holds no copy and takes no step.
        for name in ["standby-held", "standby-applied"] {
            let bytes = vectors.valid.first { $0.name == name }!.bytes
            let body = try #require(try TLSPeer.frames(in: bytes).first).bodyName
            cases.append((name, bytes, .protocolViolation, { $0 == "unexpected \(body) without the standby feature" }))
        }
        #expect(cases.count == 36)
        for (name, bytes, code, message) in cases {
            let peer = try await established(primary, watch)
            let known = try peer.frames.count
            try await peer.send(bytes)
            let after = try await framesUntilClosed(peer, after: known)
            let error = try #require(after.last, "no Error for \(name)").error
            #expect(after.count == 1 && error.code == code && error.fatal && message(error.message), "\(name): \(after)")
        }
    }

    /// Section 21 from outside: a watch that offered `measurements` sends the
    /// `measurement-batch` vector; its samples are stored with their sources and answered;
    /// the same samples again are duplicates; a batch without an id is refused, not fatally.
    @Test func measurementBatchesAreJudgedAsSection21Says() async throws {
        let (caresync, primary, watch) = try await primaryWithPairedWatch()
        let vector = try #require(try Vectors.load().valid.first { $0.name == "measurement-batch" })
        let batch = try #require(try TLSPeer.frames(in: vector.bytes).first).measurementBatch
        let peer = try await TLSPeer(port: primary.port, identity: watch)
        var offering = hello(watch)
        offering.hello.features = ["measurements"]
        try await peer.send(offering)
        let ack = try await peer.waitForFrame { $0.helloAck.protocolVersion == 1 }.helloAck
        #expect(ack.features.contains("measurements"))
        try await peer.send(vector.bytes)
        let receipt = try await peer.waitForFrame { $0.measurementReceipt.batchID == batch.batchID }.measurementReceipt
        #expect(receipt.stored == 3 && receipt.duplicates == 0 && receipt.refused.isEmpty, "\(receipt)")
        var again = batch
        again.batchID = "again"
        again.sources = []
        try await peer.send(.with { $0.measurementBatch = again })
        let repeated = try await peer.waitForFrame { $0.measurementReceipt.batchID == "again" }.measurementReceipt
        #expect(repeated.stored == 0 && repeated.duplicates == 3, "sources sent before need not come again: \(repeated)")
        var anonymous = batch
        anonymous.batchID = ""
        try await peer.send(.with { $0.measurementBatch = anonymous })
        let refusal = try await peer.waitForFrame { $0.error.code == .malformedFrame }.error
        #expect(refusal.message == "a measurement batch without an id" && !refusal.fatal)
        // Still established: a ping is answered.
        try await peer.send(.with { $0.ping = .with { $0.nonce = 21 } })
        _ = try await peer.waitForFrame { $0.pong.nonce == 21 }
        let listed = try await caresync.run("measurements", "--from", "2026-11-23", "--to", "2026-11-23", "--json")
        let stored = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(stored.compactMap { $0["id"] as? String }.sorted() == batch.samples.map(\.id).sorted())
        #expect(stored.allSatisfy { $0["device"] as? String == watch.fingerprint })
        #expect(Set(stored.compactMap { ($0["source"] as? [String: Any])?["model"] as? String }) == ["watch-sim", "cuff-sim"])
    }

    /// Sections 3 and 8: the end of the companion's data, whether it half-closes with a TLS
    /// close_notify or closes TCP without one, is a silent close between frames and a cut
    /// frame (`MALFORMED_FRAME`, read by the half-closed peer) inside one; never `INTERNAL`.
    @Test func theEndOfACompanionsDataIsASilentCloseOrACutFrame() async throws {
        let (_, primary, watch) = try await primaryWithPairedWatch()
        let truncated = try #require(try Vectors.load().invalid.first { $0.name == "truncated" }).bytes
        for withCloseNotify in [true, false] {
            for insideAFrame in [false, true] {
                let peer = try await established(primary, watch)
                let known = try peer.frames.count
                if insideAFrame { try await peer.send(truncated) }
                if withCloseNotify { await peer.shutdownWrite() } else { await peer.shutdownWriteWithoutCloseNotify() }
                let after = try await framesUntilClosed(peer, after: known)
                let label = "close_notify: \(withCloseNotify), inside a frame: \(insideAFrame)"
                if insideAFrame {
                    #expect(after.map(\.error.code) == [.malformedFrame], "\(label): \(after)")
                    #expect(after.first?.error.message == "the connection ended inside a frame (6 bytes left over)")
                } else {
                    #expect(after.isEmpty, "\(label): \(after)")
                }
            }
        }
        #expect(!primary.process.output.contains { $0.contains("INTERNAL") || $0.contains("uncleanShutdown") })
    }

    /// Section 8: after its fatal Error the primary holds the socket only until the peer
    /// closes, whether it was refused in the handshake or once established, and however it
    /// closes. A lingering socket would wait out NIOSSL's 5 s shutdown timeout.
    @Test func aRefusedConnectionIsReleasedAsSoonAsThePeerCloses() async throws {
        let (_, primary, watch) = try await primaryWithPairedWatch()
        let stranger = try NodeIdentity.create(name: "Stranger", now: Date())
        let pid = primary.process.processIdentifier
        for (refusedInTheHandshake, withCloseNotify) in [(true, true), (true, false), (false, true), (false, false)] {
            let peer: TLSPeer
            if refusedInTheHandshake {
                peer = try await TLSPeer(port: primary.port, identity: stranger)
                try await peer.send(hello(stranger))
            } else {
                peer = try await established(primary, watch)
                try await peer.send(hello(watch))
            }
            // Read before the close: a closed channel forgets its address.
            let peerPort = peer.localPort
            try await waitFor("the primary's socket for the peer", seen: { "none in /proc/\(pid)/net/tcp" }) {
                holdsConnection(pid: pid, port: primary.port, peerPort: peerPort)
            }
            let answer = await peer.receiveAll()
            #expect(answer.closed)
            #expect(try TLSPeer.frames(in: answer.bytes).last?.error.code == (refusedInTheHandshake ? .notPaired : .protocolViolation))
            if withCloseNotify { await peer.close() } else { await peer.shutdownWriteWithoutCloseNotify() }
            try await waitFor(
                "the primary to release the socket (refused in the handshake: \(refusedInTheHandshake), close_notify: \(withCloseNotify))",
                seen: { "still held" }
            ) { !holdsConnection(pid: pid, port: primary.port, peerPort: peerPort) }
        }
    }

    /// Sections 7 and 18: a Reminder carries `text`, the activity's text, else its
    /// instructions. The watch pairs with a first run of the primary; a second run's clock
    /// starts at 07:00 and is moved to 08:00 once the peer listens.
    @Test func aReminderCarriesTheActivitysText() async throws {
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Reminders", "timeZone": "UTC", "start": "\#(today)", "activities": [
          {"id": "dose", "kind": "intervention", "title": "Dose", "text": "Two tablets with water",
           "instructions": "Not shown", "schedule": {"times": ["08:00"]}},
          {"id": "vitamin", "kind": "intervention", "title": "Vitamin", "instructions": "With breakfast",
           "schedule": {"times": ["08:00"]}}]}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        #expect(try await caresync.run("plan", "load", plan, "--effective", today).status == 0)
        let first = try await PrimaryProcess(store: caresync.store)
        let watch = try await pairedWatch(caresync, first)
        await first.stop()
        let primary = try await PrimaryProcess(store: caresync.store, clockStart: "\(today)T07:00:00Z")
        let peer = try await established(primary, watch)
        try await primary.advanceClock(by: 3600)
        let reminders = try await waitFor("two reminders at 08:00") { () throws -> Sighting<[Caresync_V1_Reminder]> in
            let reminders = try peer.frames.compactMap { if case .reminder(let reminder) = $0.body { reminder } else { nil } }
            return reminders.count == 2 ? .found(reminders) : .notYet("\(reminders.count) reminders")
        }
        #expect(Set(reminders.map { "\($0.activityID): \($0.text)" }) == ["dose: Two tablets with water", "vitamin: With breakfast"])
        #expect(reminders.allSatisfy { $0.timeOfDay == "08:00" && $0.day == today && $0.reminderID == "\($0.activityID)@\(today)#0" })
    }

    /// Section 5: only PairRequests judged against the codes count toward the throttle:
    /// not pairing probes (a TLS handshake, then a close), which get a silent close, nor
    /// PairRequests refused for their version or role. After more than the 10 a minute
    /// of each, a watch still pairs.
    @Test func onlyJudgedPairRequestsCountTowardTheThrottle() async throws {
        let caresync = try await exampleStore(in: scratch)
        let primary = try await PrimaryProcess(store: caresync.store)
        let stranger = try NodeIdentity.create(name: "Stranger", now: Date())
        for _ in 0..<11 {
            let probe = try await TLSPeer(port: primary.port, identity: stranger)
            await probe.shutdownWrite()
            let answer = await probe.receiveAll()
            #expect(answer.closed && answer.bytes.isEmpty)
        }
        let refusals: [(Caresync_V1_PairRequest, Caresync_V1_ErrorCode, String)] = [
            (.with { $0.protocolVersions = [2]; $0.role = .watch }, .versionMismatch,
             "no common protocol version: the companion offers 2, the primary speaks 1"),
            (.with { $0.protocolVersions = [1]; $0.role = .primary }, .notPermitted, "a node with role primary cannot pair with a primary"),
        ]
        for (request, code, message) in refusals {
            for _ in 0..<11 {
                let peer = try await TLSPeer(port: primary.port, identity: stranger)
                try await peer.send(.with { $0.pairRequest = request })
                let error = try await #require(try framesUntilClosed(peer).last).error
                #expect(error.code == code && error.message == message && error.fatal)
            }
        }
        _ = try await pairedWatch(caresync, primary)
    }

    /// Whether process `pid` holds a socket of the loopback TCP connection between its
    /// `port` and `peerPort`: its descriptors that are sockets, matched by inode with
    /// /proc/net/tcp (`sl local rem st … uid timeout inode`).
    func holdsConnection(pid: Int32, port: Int, peerPort: Int) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(descriptors.compactMap { fd -> Substring? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                  target.hasPrefix("socket:[") else { return nil }
            return target.dropFirst("socket:[".count).dropLast()
        })
        // Read to the end: procfs files report no size, and a single read gets one page.
        let table = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp")).readToEnd()) ?? Data(), as: UTF8.self)
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9 else { return false }
            let ports = [fields[1], fields[2]].map { $0.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
            return ports == [port, peerPort] && inodes.contains(fields[9])
        }
    }
}
