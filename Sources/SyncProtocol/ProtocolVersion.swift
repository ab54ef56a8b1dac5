/// Optional capabilities a Hello offers and a HelloAck accepts, by name (protocol section 1).
public enum ProtocolFeature {
    /// The companion applies ContextDelta messages (protocol section 10).
    public static let contextDelta = "context-delta"
    /// The household device receives care reports shared with it (protocol section 20).
    public static let report = "report"
    /// The companion sends health measurements (protocol section 21).
    public static let measurements = "measurements"
    /// The household device receives missed-dose alerts (protocol section 22).
    public static let alerts = "alerts"
    /// The household device keeps a standby copy of the store (protocol section 23).
    public static let standby = "standby"
    /// The household device is told how the primary's scheduled backups stand (protocol section 24).
    public static let backupStatus = "backup-status"
}

/// Protocol versions and their negotiation.
public enum ProtocolVersion {
    /// Every version this implementation speaks.
    public static let supported: [UInt32] = [1]

    /// The highest version both sides speak.
    ///
    /// - Throws: `VERSION_MISMATCH`, naming both sides' versions, when there is none.
    public static func negotiate(offered: [UInt32], supported: [UInt32] = supported) throws(ProtocolError) -> UInt32 {
        guard let chosen = Set(offered).intersection(supported).max() else {
            throw ProtocolError(
                .versionMismatch,
                "no common protocol version: the companion offers \(list(offered)), the primary speaks \(list(supported))")
        }
        return chosen
    }

    private static func list(_ versions: [UInt32]) -> String {
        versions.isEmpty ? "none" : versions.sorted().map(String.init).joined(separator: ", ")
    }
}
