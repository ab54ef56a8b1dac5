import Foundation
import Testing

/// A `caresync primary` process on loopback.
final class PrimaryProcess {
    let process: RunningProcess
    let port: Int

    /// Starts a primary on `store` (a free port unless one is given) and waits until it
    /// listens. It advertises itself on the network only if given a `name`; its clock
    /// starts at `clockStart` (ISO 8601) if given, and then ``advanceClock(by:)`` moves it;
    /// `extra` are further options, `environment` further variables.
    init(
        store: String, port: Int = 0, name: String? = nil, clockStart: String? = nil, extra: [String] = [],
        environment: [String: String] = [:]
    ) async throws {
        let advertising = name.map { ["--name", $0] } ?? ["--no-advertise"]
        let clock = clockStart.map { ["--clock-start", $0, "--clock-control"] } ?? []
        process = try await RunningProcess(
            CareSyncCommand.executable, ["primary", "--port", "\(port)", "--json", "--store", store] + advertising + clock + extra,
            environment: environment)
        guard let line = await process.waitForLine(where: { $0.contains("\"listening\"") }),
              let listening = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let bound = listening["port"] as? Int
        else { throw ProcessFailed(description: "the primary did not start listening: \(process.output)") }
        self.port = bound
    }

    var endpoint: String { "127.0.0.1:\(port)" }

    /// Moves the primary's clock (started with `clockStart`) on by `seconds`.
    func advanceClock(by seconds: Double) async throws {
        try await process.advanceClock(by: seconds)
    }

    /// Moves the primary's clock (started with `clockStart`, and not yet past `instant`) to
    /// `instant`, give or take the milliseconds between two commands.
    func advanceClock(to instant: Date) async throws {
        let now = try await process.advanceClock(by: 0)
        try await process.advanceClock(by: instant.timeIntervalSince(now))
    }

    func stop(signal: Int32 = SIGTERM) async {
        await process.stop(signal: signal)
    }

    /// Sends `signal` without waiting (for a `defer`).
    func terminate(signal: Int32 = SIGKILL) {
        process.terminate(signal: signal)
    }

    deinit { process.terminate() }
}

extension RunningProcess {
    /// Moves the clock of a `caresync primary --clock-control` on by `seconds`, waits until
    /// the primary says so, and returns the time it then gives.
    @discardableResult
    func advanceClock(by seconds: Double) async throws -> Date {
        let isClock: @Sendable (String) -> Bool = { $0.contains("\"event\":\"clock\"") }
        let answered = output.filter(isClock).count
        send("advance \(seconds)")
        guard let answers = await waitForLines(count: answered + 1, where: isClock),
              let now = (WatchProcess.object(answers[answered])?["now"] as? String).flatMap(utcInstant)
        else { throw ProcessFailed(description: "the primary did not move its clock: \(output)") }
        return now
    }
}

/// Pairs a simulator's state directory with the running primary of `store`, as a person
/// would: `caresync pair --role ROLE`, then `SIMULATOR pair CODE`. Nothing happens if the
/// state directory already holds an identity (it paired before). `environment` is the
/// simulator's.
func pairSimulator(
    _ simulator: String = "watch-sim", role: String = "watch", store: String, locate: [String], stateDir: String,
    mayRecord: Bool = false, pairOptions: [String] = [], environment: [String: String] = [:]
) async throws {
    guard !FileManager.default.fileExists(atPath: stateDir + "/identity.pem") else { return }
    let pairing = try await CareSyncCommand.run(
        executable: CareSyncCommand.executable,
        ["pair", "--role", role, "--json", "--store", store] + (mayRecord ? ["--may-record"] : []) + pairOptions)
    guard pairing.status == 0, let code = (WatchProcess.object(pairing.stdout)?["code"] as? String) else {
        throw CommandFailed(result: pairing)
    }
    let paired = try await CareSyncCommand.run(
        executable: CareSyncCommand.binDirectory.appendingPathComponent(simulator),
        ["pair", code] + locate + ["--state-dir", stateDir, "--json", "--log-level", "debug"], environment: environment)
    guard paired.status == 0 else { throw CommandFailed(result: paired) }
}

/// A `watch-sim --json` process.
final class WatchProcess {
    let process: RunningProcess

    /// A simulator already started (any of them: they write the same JSON lines).
    init(process: RunningProcess) {
        self.process = process
    }

    /// A watch at a fixed address, paired with the primary of `store` first (with
    /// `pairOptions` for `caresync pair`).
    init(
        endpoint: String, stateDir: String, store: String, role: String = "watch", simulator: String = "watch-sim", extra: [String] = [],
        pairOptions: [String] = []
    ) async throws {
        try await pairSimulator(simulator, role: role, store: store, locate: ["--connect", endpoint], stateDir: stateDir, pairOptions: pairOptions)
        process = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent(simulator),
            ["--connect", endpoint, "--state-dir", stateDir, "--json"] + extra)
    }

    /// A watch that finds its primary on the network (`--primary` chooses one by name or
    /// id), paired with the primary of `store` first.
    init(discovering primary: String?, stateDir: String, store: String) async throws {
        let choice = primary.map { ["--primary", $0] } ?? []
        try await pairSimulator(store: store, locate: choice, stateDir: stateDir)
        process = try await RunningProcess(
            CareSyncCommand.binDirectory.appendingPathComponent("watch-sim"), ["--state-dir", stateDir, "--json"] + choice)
    }

    /// Every JSON line of `type` so far.
    func messages(_ type: String) -> [[String: Any]] {
        process.output.compactMap(Self.object).filter { $0["type"] as? String == type }
    }

    /// Waits for `count` JSON lines of `type` that satisfy `predicate`.
    @discardableResult
    func waitFor(_ type: String, count: Int = 1, within: Duration = patience,
                 where predicate: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }) async throws -> [[String: Any]] {
        guard let lines = await process.waitForLines(count: count, within: within, where: { line in
            guard let object = Self.object(line) else { return false }
            return object["type"] as? String == type && predicate(object)
        }) else {
            throw ProcessFailed(description: "no \(count) × \(type) within \(within); output:\n" + process.output.suffix(20).joined(separator: "\n"))
        }
        return lines.compactMap(Self.object)
    }

    /// Waits for a context in which `activity` `occurrence` (today) has `state`.
    @discardableResult
    func waitForState(_ activity: String, _ occurrence: Int, _ state: String) async throws -> [String: Any] {
        try await waitFor("context") { context in
            Self.event(in: context, activity, occurrence)?["state"] as? String == state
        }.last!
    }

    func send(_ command: String) {
        process.send(command)
    }

    /// Sends `signal` without waiting (for a `defer`).
    func terminate(signal: Int32 = SIGKILL) {
        process.terminate(signal: signal)
    }

    /// Asks the watch to say goodbye and exit; returns whether it did.
    @discardableResult
    func quit() async -> Bool {
        process.send("quit")
        return await process.waitForExit()
    }

    static func event(in context: [String: Any], _ activity: String, _ occurrence: Int) -> [String: Any]? {
        (context["events"] as? [[String: Any]])?.first {
            $0["activity"] as? String == activity && $0["occurrence"] as? Int == occurrence
        }
    }

    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    deinit { process.terminate() }
}

struct ProcessFailed: Error, CustomStringConvertible {
    var description: String
}

/// A store with the example plan loaded, for sync tests.
func exampleStore(in scratch: Scratch) async throws -> CareSyncCommand {
    let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
    let load = try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-01")
    guard load.status == 0 else { throw CommandFailed(result: load) }
    return caresync
}
