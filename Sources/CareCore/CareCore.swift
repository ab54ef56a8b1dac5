import CarePlanStore

/// The care core: the use cases through which the record changes, the same for every device
/// and channel. The sync node, the care app, the command line, the FHIR importer and the
/// benchmarks change the record only through these; the store's write API is open to this
/// module alone (`@_spi(CareCore)`), and a test fails if any other module imports it.
public struct CareCore: Sendable {
    /// Outcomes: from a companion, the care app or the command line.
    public let outcomes: OutcomeRecording
    /// The plan, its activities and its contacts.
    public let plan: CarePlanning
    /// Activities that came from an outside source (a FHIR server's orders).
    public let sources: SourcedActivities
    /// Pairing codes, paired devices and browser sessions.
    public let access: DeviceAccess
    /// Health measurements from companions and the command line.
    public let measurements: MeasurementRecording
    /// Care reports shared with the care team and household devices.
    public let shares: ReportSharing
    /// Reminders and missed-dose alerts.
    public let reminders: ReminderKeeping
    /// How far each reader of the record (an export to a server) has got.
    public let cursors: ReaderCursors

    public init(store: CarePlanStore) {
        outcomes = OutcomeRecording(store: store)
        plan = CarePlanning(store: store)
        sources = SourcedActivities(store: store)
        access = DeviceAccess(store: store)
        measurements = MeasurementRecording(store: store)
        shares = ReportSharing(store: store)
        reminders = ReminderKeeping(store: store)
        cursors = ReaderCursors(store: store)
    }
}
