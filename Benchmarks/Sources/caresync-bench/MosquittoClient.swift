import CMosquitto
import Foundation

/// Why the Mosquitto comparison cannot run here.
struct MosquittoUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// libmosquitto's functions, loaded once from Debian's libmosquitto1.
enum Libmosquitto {
    static let api: Result<cmosquitto_api, MosquittoUnavailable> = {
        var api = cmosquitto_api()
        var error = [CChar](repeating: 0, count: 512)
        guard cmosquitto_load(&api, &error, error.count) == 0 else {
            return .failure(MosquittoUnavailable(description: String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)))
        }
        return .success(api)
    }()
}

/// One native MQTT client (libmosquitto, its network loop on a thread of its own) connected
/// to a broker on loopback. Its waits block the calling thread: call them from ``blocking(_:)``.
final class MosquittoClient: Sendable {
    /// What the client's callbacks report, under one lock.
    private final class Events: @unchecked Sendable {
        let condition = NSCondition()
        var connected: Int32?
        var subscribed = false
        var acknowledged: Set<Int32> = []
        var received = 0
        /// When the last message arrived.
        var receivedAt = ContinuousClock.now

        /// Waits until `done` holds (true) or `timeout` passes (false).
        func wait(_ timeout: Duration, until done: (Events) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout.inSeconds)
            condition.lock()
            defer { condition.unlock() }
            while !done(self) {
                guard condition.wait(until: deadline) else { return done(self) }
            }
            return true
        }

        func update(_ change: (Events) -> Void) {
            condition.lock()
            change(self)
            condition.broadcast()
            condition.unlock()
        }

        static func of(_ pointer: UnsafeMutableRawPointer?) -> Events {
            Unmanaged<Events>.fromOpaque(pointer!).takeUnretainedValue()
        }
    }

    private let api: cmosquitto_api
    nonisolated(unsafe) private let handle: OpaquePointer
    private let events = Events()
    private let timeout: Duration

    /// Connects as `id` to the broker at 127.0.0.1:`port` and starts the client's loop.
    init(id: String, port: Int, timeout: Duration) throws {
        let api = try Libmosquitto.api.get()
        guard let handle = api.create(id, true, Unmanaged.passUnretained(events).toOpaque()) else {
            throw MosquittoUnavailable(description: "mosquitto_new failed")
        }
        (self.api, self.handle, self.timeout) = (api, handle, timeout)
        _ = api.int_option(handle, CMOSQUITTO_OPT_TCP_NODELAY, 1)
        api.connect_callback_set(handle) { _, events, code in Events.of(events).update { $0.connected = code } }
        api.subscribe_callback_set(handle) { _, events, _, _, _ in Events.of(events).update { $0.subscribed = true } }
        api.publish_callback_set(handle) { _, events, mid in Events.of(events).update { _ = $0.acknowledged.insert(mid) } }
        api.message_callback_set(handle) { _, events, _ in
            let now = ContinuousClock.now
            Events.of(events).update { ($0.received, $0.receivedAt) = ($0.received + 1, now) }
        }
        try check(api.connect(handle, "127.0.0.1", Int32(port), 60), "connect")
        try check(api.loop_start(handle), "start its loop")
        guard events.wait(timeout, until: { $0.connected != nil }), events.connected == 0 else {
            throw BenchmarkFailure("the broker did not accept MQTT client \(id) within \(duration(timeout.inSeconds))")
        }
    }

    /// Subscribes to `topic` at QoS 1 and waits for the broker's SUBACK.
    func subscribe(_ topic: String) throws {
        try check(api.subscribe(handle, nil, topic, 1), "subscribe")
        guard events.wait(timeout, until: \.subscribed) else { throw BenchmarkFailure("no SUBACK for \(topic)") }
    }

    /// Publishes `payload` to `topic` at QoS 1; returns its message id.
    func publish(_ topic: String, _ payload: [UInt8]) throws -> Int32 {
        var mid: Int32 = 0
        try check(api.publish(handle, &mid, topic, Int32(payload.count), payload, 1, false), "publish")
        return mid
    }

    /// Publishes at QoS 1 and waits for the broker's PUBACK.
    func publishAcknowledged(_ topic: String, _ payload: [UInt8]) throws {
        let mid = try publish(topic, payload)
        guard events.wait(timeout, until: { $0.acknowledged.remove(mid) != nil }) else {
            throw BenchmarkFailure("no PUBACK within \(duration(timeout.inSeconds))")
        }
    }

    /// Waits until at least `count` messages have arrived on the client's subscriptions;
    /// returns when the last of them arrived, `nil` if the timeout passes first.
    func waitReceived(_ count: Int) -> ContinuousClock.Instant? {
        var arrival: ContinuousClock.Instant?
        _ = events.wait(timeout) { events in
            guard events.received >= count else { return false }
            arrival = events.receivedAt
            return true
        }
        return arrival
    }

    /// Disconnects and stops the loop.
    func close() {
        _ = api.disconnect(handle)
        _ = api.loop_stop(handle, false)
        api.destroy(handle)
    }

    private func check(_ code: Int32, _ what: String) throws {
        guard code != 0 else { return }
        throw BenchmarkFailure("libmosquitto could not \(what): \(api.strerror(code).map { String(cString: $0) } ?? "error \(code)")")
    }
}
