import CarePlan
import Foundation
import SimulatorSupport
import SyncNode

/// The sources a simulated watch measures with: its own sensor, and a blood-pressure cuff
/// paired with it. Their ids are stable across runs (made from the watch's fingerprint).
struct WatchSources: Sendable {
    let sensor: MeasurementSource
    let cuff: MeasurementSource

    init(node: CompanionNode) {
        let prefix = String(node.nodeID.prefix(16))
        let version = node.configuration.softwareVersion
        sensor = MeasurementSource(
            id: "\(prefix)-sensor", name: "\(node.configuration.name) sensor", manufacturer: "CareSync", model: "watch-sim",
            softwareVersion: version)
        cuff = MeasurementSource(
            id: "\(prefix)-cuff", name: "Blood pressure cuff", manufacturer: "CareSync", model: "cuff-sim", softwareVersion: version)
    }

    /// The source named in a command: `sensor` (the default) or `cuff`.
    func named(_ name: String) -> MeasurementSource? {
        switch name {
        case "sensor": sensor
        case "cuff": cuff
        default: nil
        }
    }
}

/// `measure TYPE VALUE [UNIT] [--at T | --from T --to T] [--source sensor|cuff]`: one sample
/// into the outbox, for the primary to judge. What the primary would refuse (a heart rate of
/// 400, an unknown unit) is sent as typed, and its refusal reported when the answer comes.
enum MeasureCommand {
    static let usage =
        "measure heart-rate|steps|blood-pressure|glucose VALUE [UNIT] [--at T | --from T --to T] [--source sensor|cuff] (T: HH:MM today or ISO 8601; a blood pressure as 120/80)"

    static func run(_ words: [Substring], _ shell: CompanionShell, sources: WatchSources) async {
        let sample: MeasurementSample
        let source: MeasurementSource
        do {
            (sample, source) = try parse(words.dropFirst().map(String.init), sources: sources, now: Date())
        } catch {
            shell.output.showError(code: "USAGE", message: "\(error.message): \(usage)")
            return
        }
        do {
            let waiting = try await shell.node.measure([sample], sources: [source])
            shell.output.showMeasured(sample, waiting: waiting)
        } catch {
            shell.output.showError(code: "OUTBOX", message: "could not queue the measurement: \(error)")
        }
    }

    struct Failure: Error {
        var message: String
    }

    /// The sample and its source that `arguments` (after `measure`) describe, taken `now`
    /// unless they say when.
    static func parse(_ arguments: [String], sources: WatchSources, now: Date) throws(Failure) -> (MeasurementSample, MeasurementSource) {
        var positional: [String] = []
        var options: [String: String] = [:]
        var rest = arguments[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else { positional.append(word); continue }
            guard ["--at", "--from", "--to", "--source"].contains(word), let value = rest.popFirst() else {
                throw Failure(message: "\(word) is not an option of measure, or has no value")
            }
            options[String(word.dropFirst(2))] = value
        }
        guard positional.count == 2 || positional.count == 3, let type = MeasurementType(rawValue: positional[0]) else {
            throw Failure(message: "name a measurement and its value")
        }
        let parts = positional[1].split(separator: "/", omittingEmptySubsequences: false).map { Double($0) }
        guard let value = parts.first ?? nil, parts.count == (type == .bloodPressure ? 2 : 1), parts.allSatisfy({ $0 != nil }) else {
            throw Failure(message: "\"\(positional[1])\" is not a value of \(type.rawValue)")
        }
        // A unit the type does not come in is sent as written: the primary refuses it.
        let written = positional.count == 3 ? positional[2] : nil
        let unit = type.unit(written) ?? written ?? type.units[0]
        guard let source = sources.named(options["source"] ?? "sensor") else {
            throw Failure(message: "--source is sensor or cuff")
        }
        let start = try time(options["from"] ?? options["at"], now: now)
        let end = try options["to"].map { (text) throws(Failure) in try time(text, now: now) } ?? start
        let sample = MeasurementSample(
            id: UUID().uuidString.lowercased(), type: type, value: value, diastolic: type == .bloodPressure ? parts[1] : nil,
            unit: unit, start: start, end: end, sourceID: source.id)
        return (sample, source)
    }

    /// `HH:MM` today (in this process's time zone) or an ISO 8601 timestamp; `now` without one.
    static func time(_ text: String?, now: Date) throws(Failure) -> Date {
        guard let text else { return now }
        if let date = ISO8601.date(from: text) { return date }
        let clock = text.split(separator: ":").map { Int($0) }
        guard clock.count == 2, let hour = clock[0], let minute = clock[1], (0..<24).contains(hour), (0..<60).contains(minute),
              let date = Calendar.current.date(bySettingHour: hour, minute: minute, second: 0, of: now)
        else { throw Failure(message: "\"\(text)\" is not HH:MM or an ISO 8601 time") }
        return date
    }
}
