import CarePlan
import Foundation

// Conversions between the care-plan model and its wire form.

extension EventState {
    public init(wire: Caresync_V1_EventState) throws(ProtocolError) {
        switch wire {
        case .initial: self = .initial
        case .completed: self = .completed
        case .notCompleted: self = .notCompleted
        default: throw .malformed("event state \(wire.rawValue) is not initial, completed or notCompleted")
        }
    }

    public var wire: Caresync_V1_EventState {
        switch self {
        case .initial: .initial
        case .completed: .completed
        case .notCompleted: .notCompleted
        }
    }
}

extension ActivityKind {
    public init(wire: Caresync_V1_ActivityKind) throws(ProtocolError) {
        switch wire {
        case .intervention: self = .intervention
        case .assessment: self = .assessment
        default: throw .malformed("activity kind \(wire.rawValue) is not intervention or assessment")
        }
    }

    public var wire: Caresync_V1_ActivityKind {
        self == .intervention ? .intervention : .assessment
    }
}

extension OutcomeValue {
    public init(wire: Caresync_V1_OutcomeValue) throws(ProtocolError) {
        let value: Value
        switch wire.value {
        case .integer(let n): value = .integer(Int(n))
        case .decimal(let d):
            guard d.isFinite else { throw .malformed("decimal value \(d) is not a finite number") }
            value = .decimal(d)
        case .boolean(let b): value = .boolean(b)
        case .text(let t): value = .text(t)
        case .dateMs(let ms): value = .date(try Date(wireMilliseconds: ms, of: "date value"))
        case nil: throw .malformed("an outcome value without a value")
        }
        self.init(value, unit: wire.unit.nilIfEmpty, kind: wire.kind.nilIfEmpty)
    }

    public var wire: Caresync_V1_OutcomeValue {
        .with {
            switch value {
            case .integer(let n): $0.integer = Int64(n)
            case .decimal(let d): $0.decimal = d
            case .boolean(let b): $0.boolean = b
            case .text(let t): $0.text = t
            case .date(let d): $0.dateMs = d.millisecondsSince1970
            }
            $0.unit = unit ?? ""
            $0.kind = kind ?? ""
        }
    }
}

extension HybridTimestamp {
    public init(wire: Caresync_V1_HybridTimestamp) {
        self.init(physical: wire.physicalMs, logical: wire.logical, node: wire.nodeID)
    }

    public var wire: Caresync_V1_HybridTimestamp {
        .with {
            $0.physicalMs = physical
            $0.logical = logical
            $0.nodeID = node
        }
    }
}

extension Caresync_V1_Completion {
    /// The event this completion is about.
    public func eventKey() throws(ProtocolError) -> EventKey {
        guard let day = CalendarDay(day) else { throw .malformed("day \"\(day)\" is not YYYY-MM-DD") }
        return EventKey(activityID: activityID, day: day, occurrence: Int(occurrence))
    }

    /// The outcome it records, made by `device`.
    public func outcome(device: String) throws(ProtocolError) -> Outcome {
        var values: [OutcomeValue] = []
        for value in self.values { values.append(try OutcomeValue(wire: value)) }
        return Outcome(
            state: try EventState(wire: state), values: values,
            recordedAt: try Date(wireMilliseconds: deviceTimeMs, of: "device time"), device: device,
            reason: reason.nilIfEmpty, clock: hasClock ? HybridTimestamp(wire: clock) : nil)
    }
}

extension Date {
    /// The instants a message may carry, in milliseconds since 1970: years 1 to 9999 (UTC),
    /// which every other form of CareSync (JSON timestamps, the store) keeps to the millisecond.
    public static let wireMilliseconds: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// The instant `milliseconds` after 1970 from a message; `what` names the field in the error.
    ///
    /// - Throws: `MALFORMED_FRAME` outside ``wireMilliseconds``.
    public init(wireMilliseconds milliseconds: Int64, of what: String) throws(ProtocolError) {
        guard Self.wireMilliseconds.contains(milliseconds) else {
            throw .malformed("\(what) \(milliseconds) ms since 1970 is not in the years 1 to 9999")
        }
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension Rejection {
    /// The rejection a reply's reason names; `nil` for none or one this version does not know.
    public init?(wire: Caresync_V1_RejectReason) {
        switch wire {
        case .unknownActivity: self = .unknownActivity
        case .noSuchOccurrence: self = .noSuchOccurrence
        case .outsidePlanVersion: self = .outsidePlanVersion
        case .invalidResult: self = .invalidResult
        case .notPermitted: self = .notPermitted
        case .futureDay: self = .futureDay
        default: return nil
        }
    }

    public var wire: Caresync_V1_RejectReason {
        switch self {
        case .unknownActivity: .unknownActivity
        case .noSuchOccurrence: .noSuchOccurrence
        case .outsidePlanVersion: .outsidePlanVersion
        case .invalidResult: .invalidResult
        case .notPermitted: .notPermitted
        case .futureDay: .futureDay
        }
    }
}
