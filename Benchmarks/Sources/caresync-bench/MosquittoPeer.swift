import Foundation
import Clocks
import Waiting

/// What the peer, a Mosquitto broker with native clients, measured for one client count.
struct PeerFigures {
    var clients: Int
    var roundTrip = Samples()
    var fanOut = Samples()
    /// Acknowledged publications per second, every client at once.
    var throughput = Double.nan
    /// The broker's resident memory added by the clients' connections.
    var brokerAdded: Int?
}

extension SyncBenchmark {
    /// The request of the peer's round trips: about a completion's size.
    static let requestBytes = 200

    /// The CareSync workload on Mosquitto: `count` clients connected to a fresh broker on
    /// loopback (no TLS, no persistence: what a household broker does by default), each
    /// publishing `requestBytes` at QoS 1 and waiting for the PUBACK as a companion waits for
    /// its reply; one more client publishing a context of `contextBytes` at QoS 1 to all of
    /// them, subscribed at QoS 1.
    func measureMosquitto(clients count: Int, contextBytes: Int) async throws -> PeerFigures {
        var figures = PeerFigures(clients: count)
        let limit = Duration.seconds(timeout)
        let broker = try await MosquittoBroker.start(timeout: limit)
        defer { broker.stop() }
        print("Mosquitto, \(SyncBenchmark.label(count).replacingOccurrences(of: "companion", with: "client")), QoS 1 over plaintext TCP:")
        let before = broker.residentBytes
        let (clients, publisher) = try await blocking {
            let clients = try (0..<count).map { try MosquittoClient(id: "client-\($0)", port: broker.port, timeout: limit) }
            for client in clients { try client.subscribe("caresync/context") }
            return (clients, try MosquittoClient(id: "publisher", port: broker.port, timeout: limit))
        }
        defer { for client in clients + [publisher] { client.close() } }
        if let before, let after = broker.residentBytes {
            figures.brokerAdded = after - before
            report("broker RSS: before → \(count) connected", "\(bytes(before)) → \(bytes(after))  (\(bytes((after - before) / count)) per client)")
        }
        let (completions, maxSeconds) = (self.completions, self.maxSeconds)
        let request = [UInt8](repeating: 0x2A, count: Self.requestBytes)
        figures.roundTrip = try await blocking {
            var samples = Samples()
            let deadline = ContinuousClock.now + .seconds(maxSeconds)
            for n in 0..<(Self.warmUp + completions) where ContinuousClock.now < deadline {
                let start = ContinuousClock.now
                try clients[n % count].publishAcknowledged("caresync/completions/\(n % count)", request)
                if n >= Self.warmUp { samples.append(start.duration(to: .now).inSeconds) }
            }
            return samples
        }
        report("round trip: \(Self.requestBytes) B published until PUBACK", figures.roundTrip.tailSummary)
        let context = [UInt8](repeating: 0x2A, count: contextBytes)
        figures.fanOut = try await blocking {
            var samples = Samples()
            let deadline = ContinuousClock.now + .seconds(maxSeconds)
            for n in 1...(Self.warmUp + completions) where ContinuousClock.now < deadline {
                let start = ContinuousClock.now
                _ = try publisher.publish("caresync/context", context)
                let arrivals = clients.map { $0.waitReceived(n) }
                guard arrivals.allSatisfy({ $0 != nil }) else {
                    throw BenchmarkFailure("a subscriber did not receive context \(n) within \(duration(limit.inSeconds))")
                }
                if n > Self.warmUp, let last = arrivals.compactMap({ $0 }).max() { samples.append(start.duration(to: last).inSeconds) }
            }
            return samples
        }
        report("fan-out: \(bytes(contextBytes)) until every subscriber has it", figures.fanOut.summary)
        figures.throughput = try await sustained(clients, request)
        return figures
    }

    /// Every client publishing one message after another at once, each waiting for its
    /// PUBACK, for `seconds` or `sustainedLimit` messages; returns acknowledged per second.
    private func sustained(_ clients: [MosquittoClient], _ request: [UInt8]) async throws -> Double {
        let each = max(1, sustainedLimit / clients.count)
        let start = ContinuousClock.now
        let deadline = start + .seconds(seconds)
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    try await blocking {
                        var n = 0
                        while n < each && ContinuousClock.now < deadline {
                            try client.publishAcknowledged("caresync/completions/\(index)", request)
                            n += 1
                        }
                        return n
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = start.duration(to: .now).inSeconds
        let throughput = Double(acknowledged) / elapsed
        report("sustained: every client at once, one in flight each", String(format: "%.0f/s  (%d acknowledged in %@)", throughput, acknowledged, duration(elapsed)))
        return throughput
    }
}
