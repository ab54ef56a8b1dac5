import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Measurements in the store: a batch keeps what is good, names what it refuses, and keeps
/// a sample sent twice once.
struct MeasurementStoreTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let watch = MeasurementSource(id: "watch-1:sensor", name: "Kitchen watch", manufacturer: "CareSync", model: "watch-sim", softwareVersion: "0.1.0")
    let start = Date(timeIntervalSince1970: 1_795_500_000)

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
    }

    func heartRate(_ id: String, _ value: Double, after seconds: TimeInterval = 0) -> MeasurementSample {
        MeasurementSample(id: id, type: .heartRate, value: value, unit: "/min", start: start.addingTimeInterval(seconds), sourceID: watch.id)
    }

    @Test func aBatchKeepsTheGoodSamplesAndNamesTheRefusedOnes() async throws {
        let steps = MeasurementSample(
            id: "s1", type: .steps, value: 1200, unit: "{steps}", start: start, end: start.addingTimeInterval(3600), sourceID: watch.id)
        let receipt = try await store.record(
            [heartRate("h1", 72), heartRate("h2", 400, after: 1), steps, heartRate("h3", 70, after: 2)], sources: [watch], device: "watch-1")
        #expect(receipt.stored == ["h1", "s1", "h3"] && receipt.duplicates.isEmpty)
        #expect(receipt.refused.map(\.id) == ["h2"] && receipt.refused.first?.reason.description.contains("not plausible") == true)

        let again = try await store.record([heartRate("h1", 72), heartRate("h4", 75, after: 3)], sources: [], device: "watch-1")
        #expect(again.stored == ["h4"] && again.duplicates == ["h1"])

        let orphan = MeasurementSample(id: "x", type: .heartRate, value: 60, unit: "/min", start: start, sourceID: "nobody")
        #expect(try await store.record([orphan], sources: [], device: "watch-1").refused.map(\.reason) == [.unknownSource("nobody")])

        let stored = try await store.measurements.list()
        #expect(stored.map(\.measurement.id) == ["h1", "s1", "h3", "h4"])
        #expect(stored.map(\.sequence) == stored.map(\.sequence).sorted())
        #expect(stored[1].measurement == steps && stored[1].source == watch && stored[1].device == "watch-1")
    }

    @Test func queriesFilterByTypeAndTime() async throws {
        let pressure = MeasurementSample(
            id: "bp", type: .bloodPressure, value: 128, diastolic: 84, unit: "mm[Hg]", start: start.addingTimeInterval(30), sourceID: watch.id)
        _ = try await store.record([heartRate("h1", 72), pressure, heartRate("h2", 80, after: 60)], sources: [watch], device: "w")
        #expect(try await store.measurements.list(type: .heartRate).map(\.measurement.id) == ["h1", "h2"])
        #expect(try await store.measurements.list(type: .bloodPressure).first?.measurement.diastolic == 84)
        #expect(try await store.measurements.list(from: start.addingTimeInterval(1), until: start.addingTimeInterval(60)).map(\.measurement.id) == ["bp"])
        #expect(try await store.measurements.list(limit: 1).map(\.measurement.id) == ["h1"])
    }

    @Test func aSourceKeepsItsNewestDetails() async throws {
        _ = try await store.record([heartRate("h1", 72)], sources: [watch], device: "w")
        var updated = watch
        updated.softwareVersion = "0.2.0"
        _ = try await store.record([heartRate("h2", 72, after: 1)], sources: [updated], device: "w")
        #expect(try await store.measurements.list().map(\.source.softwareVersion) == ["0.2.0", "0.2.0"])
    }
}
