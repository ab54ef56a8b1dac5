import Foundation
import StrictJSON

/// Keys for orders that have neither an id nor an identifier (as Synthea's DSTU2 orders):
/// derived from what identifies an order and does not change over its life, so that a
/// re-import finds the same order again, also once it is stopped.
///
/// The key is `order-` and 16 hex digits of the FNV-1a hash of the canonical JSON (sorted
/// keys) of the order's resource type, patient, medication, date written, prescriber and
/// encounter: not its status, dosage, end date or narrative. The n-th order of one
/// document with the same key gets `-n` appended.
struct ContentKeys {
    /// The elements a key is made from.
    static let identifying = [
        "resourceType", "patient", "subject", "medicationCodeableConcept", "medicationReference", "dateWritten",
        "authoredOn", "prescriber", "requester", "encounter", "context",
    ]

    private var seen: [String: Int] = [:]

    /// The key of `order`, used only if it has neither an id nor an identifier: only such
    /// orders count towards the suffix of equal ones.
    mutating func key(for order: JSONValue) -> String {
        let identifying = JSONValue.object((order.object ?? [:]).filter { Self.identifying.contains($0.key) })
        let key = "order-" + String(format: "%016llx", Self.fnv1a(identifying.data))
        let identified = order["id"]?.string != nil || (order["identifier"]?.array ?? []).contains { $0["value"]?.string != nil }
        guard !identified else { return key }
        seen[key, default: 0] += 1
        return seen[key]! == 1 ? key : "\(key)-\(seen[key]!)"
    }

    /// FNV-1a, 64 bits: the same bytes give the same key on every machine and in every run.
    static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
