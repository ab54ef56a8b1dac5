import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation

/// The assessments that measurements answer (``Activity/measurement``), within one
/// transaction that stores measurements: each sample completes the first event of its day
/// (in the plan's time zone) that has no outcome yet, of an assessment linked to its type,
/// with the sample's values in the assessment's unit. Events are read once per day and type.
struct AnsweredAssessments {
    private struct DayAndType: Hashable {
        var day: CalendarDay
        var type: MeasurementType
    }

    private let zone: TimeZone?
    /// The events still open, per day and type, first to be answered first.
    private var open: [DayAndType: [Event]] = [:]

    init(_ record: RecordTransaction) throws {
        zone = try record.planTimeZone()
    }

    /// Completes the event `measurement` answers, if one is open; its key, or `nil`.
    mutating func answer(
        with measurement: MeasurementSample, device: String, in record: RecordTransaction
    ) throws -> EventKey? {
        guard let zone else { return nil }
        let slot = DayAndType(day: CalendarDay.containing(measurement.start, in: zone), type: measurement.type)
        if open[slot] == nil {
            open[slot] = try record.outcomes.events(on: slot.day, kind: .assessment)
                .filter { $0.activity.measurement == measurement.type && $0.outcome == nil }
        }
        guard let event = open[slot]?.first else { return nil }
        open[slot]?.removeFirst()
        guard case .number(let unit, let components)? = event.activity.result, let code = measurement.type.unit(unit) else { return nil }
        let values = components.count == 2
            ? [OutcomeValue(.decimal(measurement.value(in: code)), unit: unit, kind: components[0]),
               OutcomeValue(.decimal(measurement.diastolic(in: code) ?? measurement.value(in: code)), unit: unit, kind: components[1])]
            : [OutcomeValue(.decimal(measurement.value(in: code)), unit: unit)]
        let outcome = Outcome(
            state: .completed, values: values, recordedAt: measurement.start, device: device,
            userInfo: ["measurement": measurement.id])
        do {
            _ = try OutcomeRules.keep(record, outcome, for: event.key, messageID: nil, futureDays: .refused)
        } catch CarePlanStoreError.futureDay {
            // A sample stamped ahead of the primary's day is kept, but answers no event yet.
            return nil
        }
        return event.key
    }
}
