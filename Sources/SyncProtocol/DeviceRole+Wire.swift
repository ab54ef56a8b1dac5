import CarePlan

extension DeviceRole {
    /// The role as the protocol names it.
    public var wire: Caresync_V1_Role {
        switch self {
        case .watch: .watch
        case .widget: .widget
        case .household: .household
        }
    }

    /// The companion role `wire` names, or `nil` for a primary or an unknown role.
    public init?(wire: Caresync_V1_Role) {
        switch wire {
        case .watch: self = .watch
        case .widget: self = .widget
        case .household: self = .household
        default: return nil
        }
    }
}
