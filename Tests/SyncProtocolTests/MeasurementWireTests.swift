import CarePlan
import Foundation
import SyncProtocol
import Testing

/// Measurements on the wire (protocol section 21): what goes out comes back the same, and
/// what a primary cannot read is refused sample by sample, never the batch.
struct MeasurementWireTests {
    static let taken = Date(timeIntervalSince1970: 1_795_420_800.125)  // exact in binary: milliseconds and back give the same Date

    static let samples = [
        MeasurementSample(id: "a", type: .heartRate, value: 72, unit: "/min", start: taken, sourceID: "sensor"),
        MeasurementSample(
            id: "b", type: .steps, value: 1200, unit: "{steps}", start: taken, end: taken.addingTimeInterval(3600), sourceID: "sensor"),
        MeasurementSample(id: "c", type: .bloodPressure, value: 120, diastolic: 80, unit: "mm[Hg]", start: taken, sourceID: "cuff"),
        MeasurementSample(id: "d", type: .glucose, value: 5.6, unit: "mmol/L", start: taken, sourceID: "sensor"),
    ]

    /// A batch as the primary receives it, through its frame.
    static func received(_ envelope: Caresync_V1_Envelope) throws -> Caresync_V1_MeasurementBatch {
        let frame = try Frame.encode(envelope)
        return try Frame.decode(frame.getSlice(at: 4, length: frame.readableBytes - 4)!).measurementBatch
    }

    @Test func samplesAndSourcesComeBackAsTheyWent() throws {
        let sources = [
            MeasurementSource(id: "sensor", name: "Watch sensor", manufacturer: "CareSync", model: "watch-sim", softwareVersion: "1.0"),
            MeasurementSource(id: "cuff", name: "Cuff"),
        ]
        let wire = try Self.received(.measurementBatch(id: "batch-1", sources: sources.map(\.wire), samples: Self.samples.map(\.wire)))
        #expect(wire.samples[0].endMs == 0, "a moment has no end on the wire")
        #expect(!wire.samples[0].hasDiastolic && wire.samples[2].hasDiastolic)
        let batch = try MeasurementBatch(wire: wire)
        #expect(batch.id == "batch-1")
        #expect(batch.samples == Self.samples)
        #expect(batch.sources == sources)
        #expect(batch.unreadable.isEmpty)
    }

    @Test func anUnknownTypeOrAnImpossibleTimeRefusesThatSampleAlone() throws {
        var unknown = Self.samples[0].wire
        unknown.id = "from-the-future"
        unknown.type = .UNRECOGNIZED(9)
        var untyped = Self.samples[0].wire
        untyped.id = "untyped"
        untyped.type = .unspecified
        var late = Self.samples[1].wire
        late.id = "late"
        late.endMs = Int64.max
        let sourceless = Caresync_V1_MeasurementSource.with { $0.name = "no id" }
        let batch = try MeasurementBatch(wire: Self.received(.measurementBatch(
            id: "b", sources: [sourceless, MeasurementSource(id: "s", name: "").wire], samples: [unknown] + Self.samples.map(\.wire) + [untyped, late])))
        #expect(batch.samples == Self.samples)
        #expect(batch.unreadable.map(\.id) == ["from-the-future", "untyped", "late"])
        #expect(batch.unreadable[0].reason == "measurement type 9 is not one this primary knows")
        #expect(batch.unreadable[2].reason.contains("end \(Int64.max) ms since 1970 is not in the years 1 to 9999"))
        #expect(batch.sources == [MeasurementSource(id: "s", name: "s")], "a source without an id is left out; one without a name is named by its id")
    }

    @Test func aBatchWithoutAnIdIsRefusedWholeButNotFatally() throws {
        #expect(throws: ProtocolError(.malformedFrame, "a measurement batch without an id", fatal: false)) {
            try MeasurementBatch(wire: Self.received(.measurementBatch(id: "", sources: [], samples: Self.samples.map(\.wire))))
        }
    }

    @Test func aReceiptComesBackAsItWent() throws {
        let result = MeasurementBatchResult(
            batchID: "b", stored: 498, duplicates: 1, refused: [RefusedMeasurement(id: "x", reason: "heart-rate 400 /min is not plausible")])
        let frame = try Frame.encode(.measurementReceipt(result))
        let back = try Frame.decode(frame.getSlice(at: 4, length: frame.readableBytes - 4)!)
        #expect(MeasurementBatchResult(wire: back.measurementReceipt) == result)
        #expect(back.bodyName == "measurement_receipt")
    }
}
