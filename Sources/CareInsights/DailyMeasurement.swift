import CarePlan
import Foundation

/// A day's measurements of one type, summed up: how many, the lowest, highest and mean value
/// (of the systolic, with the diastolic's mean beside it, for a blood pressure), and the
/// total for steps. Values are in the type's first unit (glucose in mg/dL is converted to
/// mmol/L). A sample counts on the day it was taken (its start) in the patient's time zone.
public struct DailyMeasurement: Sendable, Hashable, Encodable {
    public var day: CalendarDay
    public var type: MeasurementType
    public var unit: String
    public var count: Int
    public var minimum: Double
    public var maximum: Double
    public var mean: Double
    /// A blood pressure's mean diastolic.
    public var diastolicMean: Double?
    /// Steps: the day's total.
    public var total: Double?

    /// One summary per day and type, by day, then type, in ``MeasurementType`` order.
    public static func summaries(_ measurements: [MeasurementSample], in zone: TimeZone) -> [DailyMeasurement] {
        let groups = Dictionary(grouping: measurements) { DayAndType(day: CalendarDay.containing($0.start, in: zone), type: $0.type) }
        return groups.keys.sorted().map { key in
            let samples = groups[key]!
            let values = samples.map { $0.value(in: key.type.units[0]) }
            let diastolics = samples.compactMap(\.diastolic)
            let sum = values.reduce(0, +)
            return DailyMeasurement(
                day: key.day, type: key.type, unit: key.type.units[0], count: values.count, minimum: values.min()!,
                maximum: values.max()!, mean: sum / Double(values.count),
                diastolicMean: diastolics.isEmpty ? nil : diastolics.reduce(0, +) / Double(diastolics.count),
                total: key.type == .steps ? sum : nil)
        }
    }

    private struct DayAndType: Hashable, Comparable {
        var day: CalendarDay
        var type: MeasurementType

        static func < (a: Self, b: Self) -> Bool {
            let order = MeasurementType.allCases
            return (a.day, order.firstIndex(of: a.type)!) < (b.day, order.firstIndex(of: b.type)!)
        }
    }
}
