import CarePlan
import CarePlanStore
import Foundation
import SyncNode
import SyncProtocol
import Testing

/// Measurements from a companion's outbox to the primary's store (protocol section 21).
@Suite(.serialized) struct MeasurementSyncTests {
    static let sensor = MeasurementSource(id: "watch-sensor", name: "Test watch sensor", manufacturer: "CareSync", model: "test")

    static func heartRates(_ count: Int, from start: Date, every seconds: Double = 1) -> [MeasurementSample] {
        (0..<count).map { i in
            MeasurementSample(
                id: "hr-\(i)", type: .heartRate, value: Double(60 + i % 40), unit: "/min", start: start.addingTimeInterval(Double(i) * seconds),
                sourceID: sensor.id)
        }
    }

    /// The batch results a running companion reports until `count` samples are answered.
    static func results(_ node: CompanionNode, answering count: Int) async -> [MeasurementBatchResult] {
        var results: [MeasurementBatchResult] = []
        while results.reduce(0, { $0 + $1.stored + $1.duplicates + $1.refused.count }) < count {
            guard let next = await node.firstEvent(within: patience, { if case .measurements(let r) = $0 { r } else { nil } }) else { break }
            results.append(next)
        }
        return results
    }

    @Test func measurementsTakenOfflineArriveInOrderOnceAndWithTheirSource() async throws {
        let primary = try await TestPrimary()
        let watch = try await primary.pairedCompanion(.watch)
        let start = Date(timeIntervalSince1970: 1_795_420_800)
        let samples = Self.heartRates(1_200, from: start)
        // Queued while no primary is connected; the first 100 a second time, as a retry would.
        #expect(try await watch.measure(Array(samples.prefix(700)), sources: [Self.sensor]) == 700)
        #expect(try await watch.measure(Array(samples.dropFirst(600)), sources: [Self.sensor]) == 1_200)
        #expect(watch.measurementsWaiting == 1_200)
        let running = Task { await watch.run() }
        let results = await Self.results(watch, answering: 1_200)
        #expect(results.map(\.stored).reduce(0, +) == 1_200)
        #expect(results.allSatisfy { $0.duplicates == 0 && $0.refused.isEmpty })
        #expect(results.count == 3, "batches of at most \(MeasurementBatch.maximumSamples)")
        #expect(watch.measurementsWaiting == 0)
        let stored = try await primary.store.measurements.list(type: .heartRate)
        #expect(stored.map(\.measurement) == samples)
        #expect(stored.map(\.sequence) == stored.map(\.sequence).sorted(), "stored in the order taken")
        #expect(Set(stored.map(\.source)) == [Self.sensor])
        #expect(Set(stored.map(\.device)) == [watch.nodeID])

        // The same samples again (a watch that lost its receipts): duplicates, nothing new.
        try await watch.measure(Array(samples.prefix(10)), sources: [Self.sensor])
        let again = await Self.results(watch, answering: 10)
        #expect(again.map(\.duplicates) == [10] && again.map(\.stored) == [0])
        #expect(try await primary.store.measurements.list().count == 1_200)
        await watch.stop()
        await running.value
        await primary.stop()
    }

    @Test func badSamplesAreRefusedWithTheirReasonAndTheRestOfTheBatchIsKept() async throws {
        let primary = try await TestPrimary()
        let watch = try await primary.pairedCompanion(.watch)
        let running = Task { await watch.run() }
        let now = Date()
        let cuff = MeasurementSource(id: "cuff", name: "Cuff")
        let good = [
            MeasurementSample(id: "good-hr", type: .heartRate, value: 64, unit: "/min", start: now, sourceID: Self.sensor.id),
            MeasurementSample(id: "good-bp", type: .bloodPressure, value: 121, diastolic: 79, unit: "mm[Hg]", start: now, sourceID: cuff.id),
            MeasurementSample(id: "good-glucose", type: .glucose, value: 101, unit: "mg/dL", start: now, sourceID: Self.sensor.id),
        ]
        let bad = [
            MeasurementSample(id: "hr-400", type: .heartRate, value: 400, unit: "/min", start: now, sourceID: Self.sensor.id),
            MeasurementSample(id: "hr-0", type: .heartRate, value: 0, unit: "/min", start: now, sourceID: Self.sensor.id),
            MeasurementSample(
                id: "steps-negative", type: .steps, value: -5, unit: "{steps}", start: now.addingTimeInterval(-60), end: now,
                sourceID: Self.sensor.id),
            MeasurementSample(id: "bp-upside-down", type: .bloodPressure, value: 80, diastolic: 120, unit: "mm[Hg]", start: now, sourceID: cuff.id),
            MeasurementSample(id: "glucose-furlongs", type: .glucose, value: 5, unit: "furlong", start: now, sourceID: Self.sensor.id),
            MeasurementSample(id: "unsourced", type: .heartRate, value: 70, unit: "/min", start: now, sourceID: "nobody"),
        ]
        try await watch.measure(bad.prefix(3) + good + bad.dropFirst(3), sources: [Self.sensor, cuff])
        let result = try #require(await Self.results(watch, answering: 9).first)
        #expect(result.stored == 3 && result.duplicates == 0)
        #expect(result.refused.map(\.id) == bad.map(\.id), "each refused, in the batch's order")
        let reasons = Dictionary(uniqueKeysWithValues: result.refused.map { ($0.id, $0.reason) })
        #expect(reasons["hr-400"] == "heart-rate 400 /min is not plausible: from 20 to 300")
        #expect(reasons["steps-negative"] == "steps -5 {steps} is not plausible: from 0 to 100000")
        #expect(reasons["bp-upside-down"] == "the diastolic 120 is not below the systolic 80")
        #expect(reasons["glucose-furlongs"] == "glucose does not come in \"furlong\": mmol/L or mg/dL")
        #expect(reasons["unsourced"]?.contains("no measurement source \"nobody\"") == true)
        #expect(Set(try await primary.store.measurements.list().map(\.measurement.id)) == Set(good.map(\.id)))
        #expect(watch.measurementsWaiting == 0, "refused samples leave the outbox too")
        await watch.stop()
        await running.value
        await primary.stop()
    }

    /// A watch offline for a day uploads a day of 1 Hz heart rate (86,400 samples) in
    /// batches; a completion sent as the upload begins is answered long before it ends.
    @Test func aDaysBacklogDoesNotHoldUpACompletion() async throws {
        let primary = try await TestPrimary()
        let watch = try await primary.pairedCompanion(.watch)
        let day = 86_400
        try await watch.measure(Self.heartRates(day, from: Date().addingTimeInterval(-Double(day))), sources: [Self.sensor])
        let running = Task { await watch.run() }
        let context = try #require(await firstContext(watch))
        let result = try await watch.complete(context.incomplete[0].key)
        guard case .accepted = result else {
            Issue.record("the completion was not accepted: \(result)")
            return
        }
        let storedWhenAnswered = try await primary.store.measurements.list(limit: day).count
        #expect(storedWhenAnswered < day / 2, "\(storedWhenAnswered) of \(day) stored when the completion was answered")
        let results = await Self.results(watch, answering: day)
        #expect(results.map(\.stored).reduce(0, +) == day)
        #expect(results.count >= day / MeasurementBatch.maximumSamples)
        #expect(try await primary.store.measurements.list(limit: day + 1).count == day)
        await watch.stop()
        await running.value
        await primary.stop()
    }

    /// A household device not granted recording is not offered measurements: they wait in it.
    @Test func aHouseholdDeviceWithoutRecordingKeepsItsMeasurements() async throws {
        let primary = try await TestPrimary()
        let household = try await primary.pairedCompanion(.household)
        let running = Task { await household.run() }
        _ = try #require(await firstContext(household))
        try await household.measure(Self.heartRates(3, from: Date()), sources: [Self.sensor])
        // The history request goes after anything the node could have sent before it.
        _ = try await household.history(after: 0)
        #expect(try await primary.store.measurements.list().isEmpty)
        #expect(household.measurementsWaiting == 3)
        await household.stop()
        await running.value
        await primary.stop()
    }
}
