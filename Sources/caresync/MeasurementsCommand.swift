import CareCore
import ArgumentParser
import CareInsights
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

extension MeasurementType: ExpressibleByArgument {}

/// `caresync measurements`: heart rate, steps, blood pressure and glucose as companions (or
/// a person, by hand) recorded them, listed or summed up per day.
struct MeasurementsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measurements", abstract: "Health measurements: list them, sum them up per day, or add one by hand.",
        subcommands: [List.self, Add.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The measurements taken on some days (default: today), oldest first, or per day with --summary.",
            discussion: "Days are the plan's: a measurement counts on the day it was taken in the plan's time zone.")

        @OptionGroup var options: StoreOptions

        @Option(help: "Only this type: heart-rate, steps, blood-pressure or glucose.")
        var type: MeasurementType?

        @Option(help: ArgumentHelp("The first day (default: the last day).", valueName: "YYYY-MM-DD"))
        var from: CalendarDay?

        @Option(help: ArgumentHelp("The last day (default: today).", valueName: "YYYY-MM-DD"))
        var to: CalendarDay?

        @Flag(help: "One line per day and type: count, lowest, highest, mean (total for steps).")
        var summary = false

        @Flag(help: "Print JSON: an array of measurements, or of daily summaries with --summary.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let zone = try await store.plan.timeZone()
                let last = to ?? CalendarDay.containing(Date(), in: zone)
                let first = from ?? last
                guard first <= last else { throw ValidationError("the first day \(first) is after the last day \(last)") }
                let stored = try await store.measurements.list(on: first...last, in: zone, type: type)
                if summary {
                    let days = DailyMeasurement.summaries(stored.map(\.measurement), in: zone)
                    if json { return try emitJSON(days) }
                    if days.isEmpty { emit("No measurements from \(first) to \(last).") }
                    for day in days { emit(Self.line(day)) }
                } else {
                    if json { return try emitJSON(stored.map(MeasurementJSON.init)) }
                    if stored.isEmpty { emit("No measurements from \(first) to \(last).") }
                    for measurement in stored { emit(Self.line(measurement, in: zone)) }
                }
            }
        }

        /// `2026-11-26 08:15  heart-rate  72 /min  Kitchen watch`; an interval as `10:00–11:00`.
        static func line(_ stored: StoredMeasurement, in zone: TimeZone) -> String {
            let sample = stored.measurement
            let start = local(sample.start, in: zone)
            let end = sample.end > sample.start ? "–\(TimeOfDay.containing(sample.end, in: zone))" : ""
            return "\(start)\(end)  \(sample.type.rawValue)  \(value(sample))  \(stored.source.name)"
        }

        /// `72 /min`, `120/80 mmHg`.
        static func value(_ sample: MeasurementSample) -> String {
            number(sample.value) + (sample.diastolic.map { "/" + number($0) } ?? "") + " " + MeasurementType.readable(sample.unit)
        }

        /// `2026-11-26  heart-rate  12 × 58–96, mean 71.5 /min`; steps with their total.
        static func line(_ day: DailyMeasurement) -> String {
            let mean = number(day.mean) + (day.diastolicMean.map { "/" + number($0) } ?? "")
            let total = day.total.map { ", total \(number($0))" } ?? ""
            return "\(day.day)  \(day.type.rawValue)  \(day.count) × \(number(day.minimum))–\(number(day.maximum)), mean \(mean)\(total) "
                + MeasurementType.readable(day.unit)
        }

        static func number(_ value: Double) -> String { InsightFormat.number(value) }

        /// `2026-11-26 08:15` in `zone`.
        static func local(_ instant: Date, in zone: TimeZone) -> String {
            "\(CalendarDay.containing(instant, in: zone)) \(TimeOfDay.containing(instant, in: zone))"
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a measurement taken by hand or with a device that has no companion.",
            discussion: """
                VALUE is a number, or SYSTOLIC/DIASTOLIC for a blood pressure. UNIT defaults to the type's \
                (heart-rate /min, steps {steps}, blood-pressure mm[Hg], glucose mmol/L; also bpm, mmHg, mg/dL). \
                Times are today's HH:MM or YYYY-MM-DDTHH:MM, in the plan's time zone.
                """)

        @OptionGroup var options: StoreOptions

        @Argument(help: "heart-rate, steps, blood-pressure or glucose.")
        var type: MeasurementType

        @Argument(help: ArgumentHelp("The value, such as 72, 1200 or 120/80.", valueName: "value"))
        var value: String

        @Argument(help: ArgumentHelp("Its unit, such as mg/dL.", valueName: "unit"))
        var unit: String?

        @Option(help: ArgumentHelp("When it was taken (default: now).", valueName: "time"))
        var at: String?

        @Option(help: ArgumentHelp("The end of the interval it counts (steps).", valueName: "time"))
        var until: String?

        @Option(help: ArgumentHelp("The device or person that took it.", valueName: "name"))
        var source = "Entered by hand"

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let zone = try await store.plan.timeZone()
                let now = Date()
                guard let code = type.unit(unit) else { throw MeasurementError.unknownUnit(type, unit ?? "") }
                let parts = value.split(separator: "/", omittingEmptySubsequences: false).map { Double($0) }
                guard let first = parts.first ?? nil, parts.count <= 2, parts.allSatisfy({ $0 != nil }) else {
                    throw ValidationError("\(value) is not a number (or SYSTOLIC/DIASTOLIC)")
                }
                let start = try at.map { try Self.instant($0, zone: zone, now: now) } ?? now
                let sourceID = "manual:" + source.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" }
                let measurement = MeasurementSample(
                    id: UUID().uuidString.lowercased(), type: type, value: first, diastolic: parts.count == 2 ? parts[1] : nil,
                    unit: code, start: start, end: try until.map { try Self.instant($0, zone: zone, now: now) }, sourceID: sourceID)
                let receipt = try await CareCore(store: store).measurements.record(
                    [measurement], sources: [MeasurementSource(id: sourceID, name: source)], device: options.device)
                if let refusal = receipt.refused.first { throw refusal.reason }
                emit("Recorded \(type.rawValue) \(List.value(measurement)) at \(List.local(start, in: zone))"
                    + receipt.completed.map { ": it completes \($0)" }.joined())
            }
        }

        /// `HH:MM` today, or `YYYY-MM-DDTHH:MM`, in `zone`.
        static func instant(_ text: String, zone: TimeZone, now: Date) throws -> Date {
            let parts = text.split(separator: "T", maxSplits: 1).map(String.init)
            let day = parts.count == 2 ? CalendarDay(parts[0]) : CalendarDay.containing(now, in: zone)
            guard let day, let time = TimeOfDay(parts.last!) else { throw ValidationError("\(text) is not HH:MM or YYYY-MM-DDTHH:MM") }
            return day.date(at: time, in: zone)
        }
    }
}

/// A stored measurement as `measurements --json` prints it.
private struct MeasurementJSON: Encodable {
    var id: String
    var type: MeasurementType
    var value: Double
    var diastolic: Double?
    var unit: String
    var start: String
    var end: String
    var source: MeasurementSource
    var device: String

    init(_ stored: StoredMeasurement) {
        let sample = stored.measurement
        (id, type, value, diastolic, unit) = (sample.id, sample.type, sample.value, sample.diastolic, sample.unit)
        (start, end) = (ISO8601.string(from: sample.start), ISO8601.string(from: sample.end))
        (source, device) = (stored.source, stored.device)
    }
}
