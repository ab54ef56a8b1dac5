import CareInsights
import CareLanguage
import CarePlan
import Foundation
import Testing

/// Daily summaries of measurements, against figures worked out by hand.
struct DailyMeasurementTests {
    static let vienna = TimeZone(identifier: "Europe/Vienna")!
    static let day = CalendarDay("2026-11-25")!

    /// A sample taken at `time` local time on `day` (or the day after).
    static func sample(
        _ type: MeasurementType, _ value: Double, _ diastolic: Double? = nil, unit: String? = nil, at time: String, nextDay: Bool = false
    ) -> MeasurementSample {
        let start = (nextDay ? day.adding(days: 1) : day).date(at: TimeOfDay(time)!, in: vienna)
        return MeasurementSample(
            id: UUID().uuidString, type: type, value: value, diastolic: diastolic, unit: unit ?? type.units[0], start: start, sourceID: "s")
    }

    @Test func eachDayAndTypeIsSummedUpInThePatientsTimeZone() throws {
        let samples = [
            Self.sample(.heartRate, 60, at: "08:00"), Self.sample(.heartRate, 80, at: "23:30"),
            Self.sample(.heartRate, 100, at: "00:30", nextDay: true),  // 23:30 UTC of the 25th, but the 26th in Vienna
            Self.sample(.steps, 1000, at: "09:00"), Self.sample(.steps, 500, at: "18:00"),
            Self.sample(.bloodPressure, 120, 80, at: "07:00"), Self.sample(.bloodPressure, 130, 90, at: "19:00"),
            Self.sample(.glucose, 5.5, at: "07:30"), Self.sample(.glucose, 108.096, unit: "mg/dL", at: "12:30"),
        ]
        let days = DailyMeasurement.summaries(samples.shuffled(), in: Self.vienna)
        #expect(days.map(\.day) == [Self.day, Self.day, Self.day, Self.day, Self.day.adding(days: 1)])
        #expect(days.map(\.type) == [.heartRate, .steps, .bloodPressure, .glucose, .heartRate])
        let heart = days[0]
        #expect(heart.count == 2 && heart.minimum == 60 && heart.maximum == 80 && heart.mean == 70 && heart.total == nil)
        #expect(days[1].total == 1500 && days[1].mean == 750 && days[1].unit == "{steps}")
        #expect(days[2].mean == 125 && days[2].diastolicMean == 85 && days[2].maximum == 130)
        // 108.096 mg/dL is 6.0 mmol/L: the mean of 5.5 and 6.0.
        let glucose = days[3]
        #expect(glucose.unit == "mmol/L" && abs(glucose.mean - 5.75) < 1e-9 && abs(glucose.maximum - 6.0) < 1e-9)
        #expect(days[4].count == 1 && days[4].mean == 100)
        #expect(DailyMeasurement.summaries([], in: Self.vienna).isEmpty)
    }

    /// The chart's measurement series: a mean of every sample in a group (not of the days'
    /// means), a blood pressure's two components, the steps' total; nothing for a type not taken.
    @Test func theChartShowsMeasurementsPerDayAndPerWeek() throws {
        let samples = [
            Self.sample(.heartRate, 60, at: "08:00"), Self.sample(.heartRate, 80, at: "23:30"),
            Self.sample(.heartRate, 100, at: "00:30", nextDay: true),
            Self.sample(.steps, 1000, at: "09:00"), Self.sample(.steps, 500, at: "18:00", nextDay: true),
            Self.sample(.bloodPressure, 120, 80, at: "07:00"), Self.sample(.bloodPressure, 130, 90, at: "19:00"),
        ]
        let week = CalendarDay("2026-11-23")!...CalendarDay("2026-11-29")!
        func chart(_ grouping: DayGrouping) throws -> GroupedBarChart {
            try Insights(
                days: week, events: [], measurements: samples, rules: InsightRules(), timeZone: Self.vienna,
                now: Self.day.adding(days: 5).start(in: Self.vienna), grouping: grouping, language: Language("en")
            ).chart
        }
        let byDay = try chart(.day)
        #expect(byDay.series.map(\.title) == ["Heart rate", "Steps", "Blood pressure (systolic)", "Blood pressure (diastolic)"])
        #expect(byDay.series.map(\.measure) == [.mean, .total, .mean, .mean])
        #expect(byDay.series.map(\.unit) == ["/min", "steps", "mmHg", "mmHg"])
        // Monday 23 to Sunday 29: the 25th is index 2, the 26th index 3.
        #expect(byDay.series[0].values == [nil, nil, 70, 100, nil, nil, nil])
        #expect(byDay.series[1].values == [nil, nil, 1000, 500, nil, nil, nil])
        #expect(byDay.series[2].values[2] == 125 && byDay.series[3].values[2] == 85)
        #expect(byDay.series[0].axis.maximum == 100 && byDay.series[0].normalized[2] == 0.7)

        let byWeek = try chart(.week)
        #expect(byWeek.groups.count == 1)
        // (60 + 80 + 100) / 3, not the mean of the days' means (70 and 100).
        #expect(byWeek.series[0].values == [80])
        #expect(byWeek.series[1].values == [1500])
        #expect(byWeek.series.allSatisfy { $0.measurement != nil && $0.activity == $0.measurement?.rawValue })
    }
}
