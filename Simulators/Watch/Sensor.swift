import CarePlan
import Foundation
import SimulatorSupport
import SyncNode

/// `--sensor heart-rate:1s,steps:60s`: a stream of plausible samples for demos and load,
/// bounded in count and time. Live, it takes each measurement at its interval as time
/// passes; with a start in the past (`--sensor-from`), it fills the time from then to now
/// at once, as a watch that was offline uploads what it recorded.
struct Sensor: Sendable {
    /// One measurement taken every `interval` seconds.
    struct Stream: Sendable, Hashable {
        var type: MeasurementType
        var interval: Double
    }

    var streams: [Stream]
    /// The most samples taken, all streams together.
    var count: Int
    /// The longest a live run lasts.
    var seconds: Int
    /// Where a filled-in run starts; `nil` for a live one.
    var from: Date?

    /// The streams `spec` names: `TYPE:INTERVAL` pairs separated by commas, the interval a
    /// number with `s`, `m` or `h` (`heart-rate:1s,steps:60s,blood-pressure:8h`).
    static func streams(_ spec: String) throws(MeasureCommand.Failure) -> [Stream] {
        try spec.split(separator: ",").map { (part) throws(MeasureCommand.Failure) in
            let pair = part.split(separator: ":")
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
            guard pair.count == 2, let type = MeasurementType(rawValue: String(pair[0])), let unit = pair[1].last.flatMap({ units[$0] }),
                  let amount = Double(pair[1].dropLast()), amount > 0, amount * unit >= 0.01
            else {
                throw MeasureCommand.Failure(message: "--sensor takes TYPE:INTERVAL pairs such as heart-rate:1s,steps:60s, not \"\(part)\"")
            }
            return Stream(type: type, interval: amount * unit)
        }
    }

    /// Takes samples into `node`'s outbox until the count or the time is reached, and says
    /// how many it took.
    func run(_ node: CompanionNode, sources: WatchSources, output: EventOutput) async {
        var vitals = Vitals()
        let start = from ?? Date()
        var due = streams.map { _ in start }
        var taken = 0
        var pending: [MeasurementSample] = []
        let deadline = from.map { _ in Date() } ?? start.addingTimeInterval(Double(seconds))
        while taken < count, !Task.isCancelled {
            let (index, at) = due.enumerated().min { $0.element < $1.element }.map { ($0.offset, $0.element) }!
            guard at <= deadline else { break }
            if from == nil, at > Date() {
                // Live: hand over what was taken, then wait for the next measurement's time.
                await keep(&pending, node, sources, output)
                try? await Task.sleep(for: .seconds(at.timeIntervalSinceNow))
            }
            let stream = streams[index]
            pending.append(vitals.sample(stream, at: at, source: stream.type == .bloodPressure ? sources.cuff : sources.sensor))
            due[index] = at.addingTimeInterval(stream.interval)
            taken += 1
            if pending.count >= 1000 { await keep(&pending, node, sources, output) }
        }
        await keep(&pending, node, sources, output)
        output.showSensor(samples: taken, from: taken > 0 ? start : nil, to: taken > 0 ? min(deadline, Date()) : nil)
    }

    private func keep(_ samples: inout [MeasurementSample], _ node: CompanionNode, _ sources: WatchSources, _ output: EventOutput) async {
        guard !samples.isEmpty else { return }
        do {
            try await node.measure(samples, sources: [sources.sensor, sources.cuff])
        } catch {
            output.showError(code: "OUTBOX", message: "could not queue \(samples.count) measurements: \(error)")
        }
        samples.removeAll(keepingCapacity: true)
    }
}

/// Plausible values that wander as a body's do: a pulse drifting round 70 /min, walks of a
/// few minutes between rests, a blood pressure near 120/80 and glucose near 5.5 mmol/L.
struct Vitals {
    private var pulse = 70.0
    private var walking = false

    mutating func sample(_ stream: Sensor.Stream, at time: Date, source: MeasurementSource) -> MeasurementSample {
        let id = UUID().uuidString.lowercased()
        switch stream.type {
        case .heartRate:
            pulse = min(130, max(50, pulse + Double.random(in: -2...2) + (walking ? 0.6 : -0.3)))
            return MeasurementSample(id: id, type: .heartRate, value: pulse.rounded(), unit: "/min", start: time, sourceID: source.id)
        case .steps:
            if Double.random(in: 0..<1) < 0.15 { walking.toggle() }
            let perMinute = walking ? Double.random(in: 80...115) : Double.random(in: 0...6)
            return MeasurementSample(
                id: id, type: .steps, value: (perMinute * stream.interval / 60).rounded(), unit: "{steps}",
                start: time.addingTimeInterval(-stream.interval), end: time, sourceID: source.id)
        case .bloodPressure:
            let systolic = (Double.random(in: 112...132)).rounded()
            return MeasurementSample(
                id: id, type: .bloodPressure, value: systolic, diastolic: (systolic - Double.random(in: 38...48)).rounded(), unit: "mm[Hg]",
                start: time, sourceID: source.id)
        case .glucose:
            return MeasurementSample(
                id: id, type: .glucose, value: (Double.random(in: 4.6...6.8) * 10).rounded() / 10, unit: "mmol/L", start: time,
                sourceID: source.id)
        }
    }
}
