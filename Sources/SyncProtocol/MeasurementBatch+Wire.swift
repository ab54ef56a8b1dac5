import CarePlan
import Foundation

/// A batch of measurements as the primary reads it (protocol section 21): the samples it
/// could read, and those it could not with why. A sample that cannot be read is refused
/// alone; the others are judged as usual.
public struct MeasurementBatch: Sendable {
    public var id: String
    public var sources: [MeasurementSource]
    public var samples: [MeasurementSample]
    public var unreadable: [RefusedMeasurement]

    /// The most samples a companion puts in one batch (section 14).
    public static let maximumSamples = 500

    /// - Throws: non-fatal `MALFORMED_FRAME` for a batch without an id; a source without an
    ///   id is left out, so the samples naming it are refused as from an unknown source.
    public init(wire: Caresync_V1_MeasurementBatch) throws(ProtocolError) {
        guard !wire.batchID.isEmpty else { throw ProtocolError(.malformedFrame, "a measurement batch without an id", fatal: false) }
        id = wire.batchID
        sources = wire.sources.compactMap(MeasurementSource.init(wire:))
        samples = []
        unreadable = []
        for sample in wire.samples {
            do throws(ProtocolError) {
                samples.append(try MeasurementSample(wire: sample))
            } catch {
                unreadable.append(RefusedMeasurement(id: sample.id, reason: error.message))
            }
        }
    }
}

extension MeasurementBatchResult {
    public init(wire: Caresync_V1_MeasurementReceipt) {
        self.init(
            batchID: wire.batchID, stored: Int(wire.stored), duplicates: Int(wire.duplicates),
            refused: wire.refused.map { RefusedMeasurement(id: $0.id, reason: $0.reason) })
    }
}

/// A sample as a companion's outbox keeps it and sends it: its message, encoded once as it
/// is kept (``MeasurementSample/serializedBytes()``) and sent as it was kept, so that a day's
/// backlog is never read back into domain values only to be encoded again.
public struct EncodedMeasurement: Sendable {
    var wire: Caresync_V1_Measurement

    /// The sample an outbox row keeps.
    public init(serializedBytes bytes: Data) throws {
        wire = try Caresync_V1_Measurement(serializedBytes: bytes)
    }

    /// The sample's id, which the primary's receipt names.
    public var id: String { wire.id }
    /// The id of the source that took it.
    public var sourceID: String { wire.sourceID }
}

/// A source as a companion's outbox keeps it and sends it, like ``EncodedMeasurement``.
public struct EncodedMeasurementSource: Sendable {
    var wire: Caresync_V1_MeasurementSource

    /// The source an outbox row keeps.
    public init(serializedBytes bytes: Data) throws {
        wire = try Caresync_V1_MeasurementSource(serializedBytes: bytes)
    }
}

extension Caresync_V1_Envelope {
    /// Samples from a companion's outbox (kept as they go on the wire), with the sources they name.
    public static func measurementBatch(
        id: String, sources: [Caresync_V1_MeasurementSource], samples: [Caresync_V1_Measurement]
    ) -> Self {
        .with {
            $0.measurementBatch = .with {
                $0.batchID = id
                $0.sources = sources
                $0.samples = samples
            }
        }
    }

    /// Samples from a companion's outbox, with the sources they name, as they were kept.
    public static func measurementBatch(id: String, sources: [EncodedMeasurementSource], samples: [EncodedMeasurement]) -> Self {
        measurementBatch(id: id, sources: sources.map(\.wire), samples: samples.map(\.wire))
    }

    /// The primary's receipt for a committed batch.
    public static func measurementReceipt(_ result: MeasurementBatchResult) -> Self {
        .with {
            $0.measurementReceipt = .with {
                $0.batchID = result.batchID
                $0.stored = UInt32(clamping: result.stored)
                $0.duplicates = UInt32(clamping: result.duplicates)
                $0.refused = result.refused.map { refused in .with { $0.id = refused.id; $0.reason = refused.reason } }
            }
        }
    }
}

extension MeasurementType {
    public var wire: Caresync_V1_MeasurementType {
        switch self {
        case .heartRate: .heartRate
        case .steps: .steps
        case .bloodPressure: .bloodPressure
        case .glucose: .glucose
        }
    }

    init(wire: Caresync_V1_MeasurementType) throws(ProtocolError) {
        switch wire {
        case .heartRate: self = .heartRate
        case .steps: self = .steps
        case .bloodPressure: self = .bloodPressure
        case .glucose: self = .glucose
        case .unspecified, .UNRECOGNIZED: throw .malformed("measurement type \(wire.rawValue) is not one this primary knows")
        }
    }
}

extension MeasurementSample {
    /// The sample as an outbox row keeps it (read back as an ``EncodedMeasurement``).
    public func serializedBytes() throws -> Data {
        try wire.serializedBytes()
    }

    /// The sample as it goes on the wire.
    public var wire: Caresync_V1_Measurement {
        .with {
            $0.id = id
            $0.type = type.wire
            $0.value = value
            if let diastolic { $0.diastolic = diastolic }
            $0.unit = unit
            $0.startMs = start.millisecondsSince1970
            $0.endMs = end == start ? 0 : end.millisecondsSince1970
            $0.sourceID = sourceID
        }
    }

    /// A sample from the wire; its plausibility is the store's to judge.
    ///
    /// - Throws: `MALFORMED_FRAME` for a type this version does not know, or a time outside
    ///   the years 1 to 9999.
    public init(wire: Caresync_V1_Measurement) throws(ProtocolError) {
        let start = try Date(wireMilliseconds: wire.startMs, of: "start")
        self.init(
            id: wire.id, type: try MeasurementType(wire: wire.type), value: wire.value,
            diastolic: wire.hasDiastolic ? wire.diastolic : nil, unit: wire.unit, start: start,
            end: wire.endMs == 0 ? start : try Date(wireMilliseconds: wire.endMs, of: "end"), sourceID: wire.sourceID)
    }
}

extension MeasurementSource {
    /// The source as an outbox row keeps it (read back as an ``EncodedMeasurementSource``).
    public func serializedBytes() throws -> Data {
        try wire.serializedBytes()
    }

    public var wire: Caresync_V1_MeasurementSource {
        .with {
            $0.id = id
            $0.name = name
            $0.manufacturer = manufacturer ?? ""
            $0.model = model ?? ""
            $0.softwareVersion = softwareVersion ?? ""
        }
    }

    /// A source from the wire; `nil` without an id. A source without a name is named by its id.
    public init?(wire: Caresync_V1_MeasurementSource) {
        guard !wire.id.isEmpty else { return nil }
        self.init(
            id: wire.id, name: wire.name.isEmpty ? wire.id : wire.name, manufacturer: wire.manufacturer.nilIfEmpty,
            model: wire.model.nilIfEmpty, softwareVersion: wire.softwareVersion.nilIfEmpty)
    }
}
