import CarePlan

/// Who asks for an outcome to be recorded, and what they were granted: every channel into
/// the record names itself, and is judged by the same rules.
public enum Recorder: Sendable, Hashable {
    /// A paired companion: a watch, a widget, or a household device, with the grant its
    /// pairing gave (watches and widgets always record; a household device when granted).
    case companion(nodeID: String, role: DeviceRole, mayRecord: Bool)
    /// A signed-in browser session of the care app (`mayRecord` unless it only reads).
    case browser(sessionID: String, mayRecord: Bool)
    /// The command line on the primary's machine, the one channel that may back-fill a day
    /// after today, when it says so.
    case commandLine(device: String, futureDays: FutureDays)

    /// The device the record names as the outcome's source.
    public var device: String {
        switch self {
        case .companion(let nodeID, _, _): nodeID
        case .browser(let sessionID, _): "browser:\(sessionID)"
        case .commandLine(let device, _): device
        }
    }

    /// Whether this recorder may change the record at all.
    var mayRecord: Bool {
        switch self {
        case .companion(_, _, let granted): granted
        case .browser(_, let granted): granted
        case .commandLine: true
        }
    }

    /// Whether a day after today may be recorded.
    var futureDays: FutureDays {
        if case .commandLine(_, let futureDays) = self { futureDays } else { .refused }
    }

    /// Why the record refuses this recorder, said as the protocol's detail.
    var notPermittedDetail: String {
        switch self {
        case .companion: "this household device was not granted recording at pairing"
        case .browser: "this session may read the care plan but not record"
        case .commandLine: ""
        }
    }
}
