import CarePlanStore
import Synchronization

/// The paired devices, read from the store once and kept in memory: a connection's
/// handshake looks its device up here instead of in the store. The primary forgets the
/// copy when it pairs a device and when the change log shows a pairing or a revocation
/// (made by `caresync devices revoke`, say); a device not in the copy is looked up in the
/// store, so a pairing the change log has not yet shown is never refused.
final class DeviceDirectory: Sendable {
    private struct State {
        /// Advances with every ``forget()``: a read that began before it is not kept.
        var generation = 0
        var devices: [String: PairedDevice]?
    }

    private let store: CarePlanStore
    private let state = Mutex(State())

    init(store: CarePlanStore) {
        self.store = store
    }

    /// The device with fingerprint `id`, as the store had it at the latest ``forget()`` or
    /// later; `nil` if it was never paired.
    func device(_ id: String) async throws -> PairedDevice? {
        while true {
            let (generation, cached) = state.withLock { ($0.generation, $0.devices) }
            let devices: [String: PairedDevice]
            if let cached {
                devices = cached
            } else {
                devices = Dictionary(try await store.devices.all().map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            }
            let current = state.withLock { state in
                guard state.generation == generation else { return false }
                state.devices = devices
                return true
            }
            guard current else { continue }  // forgotten while reading: read again
            if let device = devices[id] { return device }
            // Paired since the copy was made (the change log has not shown it yet): the copy is stale.
            guard let device = try await store.devices.device(id) else { return nil }
            forget()
            return device
        }
    }

    /// Forgets the copy: the next look-up reads the store again.
    func forget() {
        state.withLock { state in
            state.generation += 1
            state.devices = nil
        }
    }
}
