import AsyncHTTPClient
import Foundation
import NIOCore
import NodeIdentity
import RelayProtocol
import Testing

/// Issue 55's faults, each through a real `strelaysrv` on loopback: a relay that is not
/// blind, a relay killed or stopped, a slow one, links that carry one way or have been
/// forgotten at one end, and many devices that come and go.
///
/// Where a test breaks links, the relay advertises a ``FaultProxy`` as its session address
/// (`-ext-address`): the primary and the devices speak the relay protocol to the relay
/// itself, and only the sessions, the bytes between a device and the primary, pass the proxy.
@Suite struct RelayFaultTests {
    let scratch = Scratch()
    var scene: RelayScene { RelayScene(scratch: scratch) }

    /// A relay whose sessions pass `proxy`, and the address the primary joins it at.
    func relay(behind proxy: FaultProxy, port: Int, arguments: [String] = []) async throws -> (RelayServer, RelayAddress) {
        let relay = try await RelayServer.start(
            keys: scratch.path("relay-keys"), port: port, arguments: ["-ext-address", "127.0.0.1:\(proxy.port)"] + arguments)
        return (relay, RelayAddress(host: "127.0.0.1", port: port, id: relay.address.id))
    }

    /// A household device away whose sessions pass a fault proxy, and what it takes.
    struct ProxiedHousehold {
        let proxy: FaultProxy
        let relay: RelayServer
        let caresync: CareSyncCommand
        let primary: PrimaryProcess
        let household: WatchProcess

        func end() {
            household.process.terminate()
            primary.terminate()
            relay.process.terminate()
            proxy.close()
        }
    }

    /// Margaret's primary, its relay behind a fault proxy, and a household device away,
    /// once it holds a context.
    func proxiedHousehold() async throws -> ProxiedHousehold {
        let port = try freeLoopbackPort()
        let proxy = try await FaultProxy.start(upstream: port)
        let relay: RelayServer, address: RelayAddress
        do {
            (relay, address) = try await self.relay(behind: proxy, port: port)
        } catch {
            proxy.close()
            throw error
        }
        // Past here a failure ends the primary and the device with them (their deinit).
        do {
            let caresync = try await scene.margaretsStore()
            let primary = try await scene.primary(caresync, relays: [address])
            let household = try await scene.away(caresync, primary: primary)
            try await household.waitFor("context")
            return ProxiedHousehold(proxy: proxy, relay: relay, caresync: caresync, primary: primary, household: household)
        } catch {
            relay.process.terminate()
            proxy.close()
            throw error
        }
    }

    @Test func aRelayThatEndsTheTLSItselfIsRefusedByThePinAndNothingReachesTheRecord() async throws {
        let port = try freeLoopbackPort()
        let impostor = try NodeIdentity.create(name: "Not the primary", now: Date())
        let proxy = try await FaultProxy.start(upstream: port, impostor: impostor)
        defer { proxy.close() }
        let (relay, address) = try await relay(behind: proxy, port: port)
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await scene.primary(caresync, relays: [address])
        defer { primary.terminate() }

        // A watch paired at home takes its context there, then goes away.
        let stateDir = scratch.path("watch")
        let home = try await WatchProcess(endpoint: primary.endpoint, stateDir: stateDir, store: caresync.store)
        try await home.waitFor("context")
        home.send("quit")
        #expect(await home.process.waitForExit())
        let watch = WatchProcess(process: try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"), ["--state-dir", stateDir, "--json", "--relay-only"]))
        defer { watch.process.terminate() }

        // Inside the session the proxy answers with its own certificate: refused, by name.
        let refusal = try await watch.waitFor("error") { ($0["message"] as? String)?.contains("presented certificate") == true }[0]
        let message = try #require(refusal["message"] as? String)
        #expect(refusal["code"] as? String == "NOT_PAIRED")
        #expect(message.contains(NodeIdentity.display(impostor.fingerprint)) && message.contains("relay"), "\(message)")
        // What the watch records meanwhile waits in its outbox; the relay keeps refusing.
        watch.send("complete dose 0")
        try await watch.waitFor("reply") { $0["status"] as? String == "queued" }
        try await watch.waitFor("error", count: 2) { ($0["message"] as? String)?.contains("presented certificate") == true }
        #expect(watch.messages("connected").isEmpty)
        #expect(try await scene.doseOutcomes(caresync).isEmpty)
        #expect(proxy.sessionsEnded >= 2, "the proxy ended \(proxy.sessionsEnded) sessions' TLS")
    }

    @Test func aCompletionQueuedWhileTheRelayIsGoneIsRecordedOnceWhenItReturns() async throws {
        let keys = scratch.path("relay-keys")
        var relay = try await RelayServer.start(keys: keys)
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await scene.primary(caresync, relays: [relay.address])
        defer { primary.terminate() }
        let watch = try await scene.away(caresync, primary: primary, simulator: "watch-sim", role: "watch")
        defer { watch.process.terminate() }
        try await watch.waitFor("context")

        relay.process.terminate(signal: SIGKILL)
        try await watch.waitFor("disconnected")
        watch.send("complete dose 0")
        let queued = try await watch.waitFor("reply") { $0["status"] as? String == "queued" }[0]
        watch.send("list")
        #expect((try await watch.waitFor("list")[0]["pending"] as? [Any])?.count == 1)

        // Back on its port: the primary joins it again, the watch reaches it and its completion lands.
        relay = try await RelayServer.start(keys: keys, port: relay.port)
        let accepted = try await watch.waitFor("reply") { $0["status"] as? String == "accepted" }[0]
        #expect(accepted["activity"] as? String == "dose" && accepted["occurrence"] as? Int == queued["occurrence"] as? Int)
        try await watch.waitForState("dose", 0, "completed")
        #expect(try await scene.doseOutcomes(caresync).count == 1)

        // Once more away and back: nothing is sent again.
        relay.process.terminate(signal: SIGKILL)
        try await watch.waitFor("disconnected", count: 2)
        relay = try await RelayServer.start(keys: keys, port: relay.port)
        try await watch.waitFor("connected", count: 3)
        // Its outbox is empty: nothing waits to be sent again.
        watch.send("list")
        let list = try await watch.waitFor("list", count: 2)[1]
        #expect((list["pending"] as? [Any])?.isEmpty == true, "\(list)")
        #expect(try await scene.doseOutcomes(caresync).count == 1)
        #expect(watch.messages("reply").filter { $0["status"] as? String == "accepted" }.count == 1)
    }

    @Test func aRelayStoppedLongerThanTheKeepaliveIsNoticedAndNoAlertIsLostOrToldTwice() async throws {
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"))
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await scene.primary(caresync, relays: [relay.address], clock: "08:30:00")
        defer { primary.terminate() }
        let household = try await scene.away(caresync, primary: primary)
        defer { household.process.terminate() }
        try await household.waitFor("context")
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.process.terminate() }
        try await watch.waitFor("context")

        // Stopped, the relay still holds every socket open and says nothing: only the
        // session's keepalive can tell (the companion's idle timeout, 45 s).
        kill(relay.process.processIdentifier, SIGSTOP)
        defer { kill(relay.process.processIdentifier, SIGCONT) }
        let lost = try await household.waitFor("disconnected", within: .seconds(150))[0]
        #expect((lost["reason"] as? String)?.isEmpty == false)
        // Meanwhile the dose is missed, and then taken at home: an alert and its all clear wait.
        try await primary.advanceClock(to: try #require(utcInstant("\(scene.today)T09:00:00.200Z")))
        try await primary.process.waitForLine { WatchProcess.object($0)?["event"] as? String == "alert" }
        watch.send("complete dose 0")
        try await watch.waitFor("reply") { $0["status"] as? String == "accepted" }

        kill(relay.process.processIdentifier, SIGCONT)
        try await household.waitFor("connected", count: 2, within: .seconds(150))
        try await household.waitFor("alert", within: .seconds(90)) { $0["kind"] as? String == "cleared" }
        try await household.waitForState("dose", 0, "completed")
        let alerts = household.messages("alert")
        #expect(alerts.filter { $0["kind"] as? String == "missed" }.count == 1, "\(alerts)")
        #expect(alerts.filter { $0["kind"] as? String == "cleared" }.count == 1, "\(alerts)")
    }

    @Test func throughASlowRelayTheReportArrivesWholeAndTheSessionHolds() async throws {
        // 16 kB/s each way for each session: a report of a few hundred kilobytes takes a while.
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"), arguments: ["-per-session-rate", "16384"])
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await scene.primary(caresync, relays: [relay.address])
        defer { primary.terminate() }
        let household = try await scene.away(caresync, primary: primary)
        defer { household.process.terminate() }
        try await household.waitFor("context")

        let devices = try await caresync.run("devices", "--json").lines.compactMap(WatchProcess.object)
        let id = try #require(devices.first { $0["role"] as? String == "household" }?["id"] as? String)
        let shared = try await caresync.run("share", "report", "--week", scene.today, "--household", id, "--format", "pdf")
        #expect(shared.status == 0, "\(shared.stderr)")
        let report = try await household.waitFor("report", within: .seconds(180))[0]
        let saved = try Data(contentsOf: URL(fileURLWithPath: try #require(report["path"] as? String)))
        #expect(saved.starts(with: Array("%PDF-".utf8)) && saved.count > 16_384, "\(saved.count) bytes")
        #expect(household.messages("connected").count == 1, "the slow session was not given up")
    }

    @Test func aLinkThatCarriesOneWayIsGivenUpAndTheDeviceComesBackWhenItHeals() async throws {
        let link = try await proxiedHousehold()
        defer { link.end() }
        let (proxy, caresync, primary, household) = (link.proxy, link.caresync, link.primary, link.household)
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.process.terminate() }
        try await watch.waitFor("context")

        // The device's pings reach the primary; nothing comes back.
        proxy.set(.dropTowardClient)
        try await household.waitFor("disconnected", within: .seconds(150))
        watch.send("complete dose 0")
        try await watch.waitFor("reply") { $0["status"] as? String == "accepted" }
        proxy.set(.none)
        try await household.waitFor("connected", count: 2, within: .seconds(150))
        try await household.waitForState("dose", 0, "completed")
    }

    @Test func aSessionForgottenAtTheDevicesEndIsReplacedAndThePrimaryLetsTheOldOneGo() async throws {
        let link = try await proxiedHousehold()
        defer { link.end() }
        let (proxy, caresync, primary, household) = (link.proxy, link.caresync, link.primary, link.household)
        let files = try openFiles(of: primary.process.processIdentifier)

        // The device's end closed, the relay's and the primary's left open (half-open).
        proxy.abandonClients()
        try await household.waitFor("connected", count: 2)
        // The primary holds the old session until its idle timeout ends it.
        try await waitFor("the primary to let the forgotten session go", every: .milliseconds(500), within: .seconds(150)) {
            (try? openFiles(of: primary.process.processIdentifier)).map { $0 <= files } ?? false
        }
        // The new session is the one that carries.
        let watch = try await WatchProcess(endpoint: primary.endpoint, stateDir: scratch.path("watch"), store: caresync.store)
        defer { watch.process.terminate() }
        try await watch.waitFor("context")
        watch.send("complete dose 0")
        try await household.waitForState("dose", 0, "completed")
    }

    @Test func fiftyDevicesKilledMidSessionLeaveTheRelayNoSessionAndThePrimaryNoFile() async throws {
        let status = try freeLoopbackPort()
        let relay = try await RelayServer.start(keys: scratch.path("relay-keys"), arguments: ["-status-srv", "127.0.0.1:\(status)"])
        defer { relay.process.terminate() }
        let caresync = try await scene.margaretsStore()
        let primary = try await scene.primary(caresync, relays: [relay.address])
        defer { primary.terminate() }
        let stateDir = scratch.path("household")
        let first = try await scene.away(caresync, primary: primary, stateDir: stateDir)
        try await first.waitFor("context")
        first.send("quit")
        #expect(await first.process.waitForExit())
        try await waitFor("the relay to end the first session", every: .milliseconds(200), within: .seconds(30)) {
            await activeSessions(status) == 0
        }
        let files = try openFiles(of: primary.process.processIdentifier)

        for cycle in 1...50 {
            let device = WatchProcess(process: try await RunningProcess(
                CareSyncCommand.binDirectory.appendingPathComponent("household-sim"), ["--state-dir", stateDir, "--json", "--relay-only"]))
            let connected = try await device.waitFor("connected")
            #expect(connected.first?["way"] as? String == "relay 127.0.0.1", "cycle \(cycle)")
            await device.process.stop(signal: SIGKILL)
        }
        try await waitFor("the relay to hold no session", every: .milliseconds(200), within: .seconds(60)) {
            await activeSessions(status) == 0
        }
        try await waitFor("the primary's open files to come back", every: .milliseconds(200), within: .seconds(60)) {
            (try? openFiles(of: primary.process.processIdentifier)).map { $0 <= files } ?? false
        }
        #expect(try await scene.doseOutcomes(caresync).isEmpty)
    }
}

/// How many files process `pid` holds open.
private func openFiles(of pid: Int32) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
}

/// The relay's `numActiveSessions`, from its status service on 127.0.0.1:`port` (-1 when it
/// does not answer).
private func activeSessions(_ port: Int) async -> Int {
    guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/status"), timeout: .seconds(5)),
          let body = try? await response.body.collect(upTo: 1 << 20),
          let status = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
    else { return -1 }
    return status["numActiveSessions"] as? Int ?? -1
}
