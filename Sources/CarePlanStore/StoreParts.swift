import Foundation
import GRDB
import Synchronization

/// One part of the store, keeping one kind of thing. Every part shares the store's one
/// database, schema, change log and caches underneath (``CarePlanStore``).
protocol StorePart: Sendable {
    var store: CarePlanStore { get }
}

extension StorePart {
    var path: String { store.path }
    func now() -> Date { store.now() }
    var definitions: DefinitionCache { store.definitions }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(CarePlanStoreError) -> T {
        try await store.read(body)
    }

    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(CarePlanStoreError) -> T {
        try await store.write(body)
    }
}

/// The plan: its title, time zone and routine, its activities and their versions, its contacts.
public struct PlanStore: StorePart {
    let store: CarePlanStore
}

/// Where imported activities came from (a FHIR order, say) and the orders held for review.
public struct SourceStore: StorePart {
    let store: CarePlanStore
}

/// The events the plan's schedules make and the outcome recorded for each.
public struct OutcomeStore: StorePart {
    let store: CarePlanStore
}

/// Paired devices, their pairing codes and revocations.
public struct DeviceStore: StorePart {
    let store: CarePlanStore
}

/// The care app's browser sessions and their sign-in codes.
public struct WebSessionStore: StorePart {
    let store: CarePlanStore
}

/// Measurements from companions, and the cursors of exports that follow them.
public struct MeasurementStore: StorePart {
    let store: CarePlanStore
}

/// Care reports shared with devices, and their delivery.
public struct ShareStore: StorePart {
    let store: CarePlanStore
}

/// Local reminders and missed-dose alerts.
public struct ReminderStore: StorePart {
    let store: CarePlanStore
}

extension CarePlanStore {
    /// The plan, its activities and contacts.
    public var plan: PlanStore { PlanStore(store: self) }
    /// Where imported activities came from, and orders held for review.
    public var sources: SourceStore { SourceStore(store: self) }
    /// Events and their outcomes.
    public var outcomes: OutcomeStore { OutcomeStore(store: self) }
    /// Paired devices and pairing.
    public var devices: DeviceStore { DeviceStore(store: self) }
    /// The care app's browser sessions.
    public var webSessions: WebSessionStore { WebSessionStore(store: self) }
    /// Measurements and export cursors.
    public var measurements: MeasurementStore { MeasurementStore(store: self) }
    /// Shared care reports.
    public var shares: ShareStore { ShareStore(store: self) }
    /// Reminders and missed-dose alerts.
    public var reminders: ReminderStore { ReminderStore(store: self) }
}
