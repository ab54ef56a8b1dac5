import CarePlan
import Foundation

/// The identifiers CareSync gives what it exports, unique per plan (the store's plan id).
///
/// An administration is named by its event and the revision of the change that recorded
/// its outcome: `golden-apple/2026-11-23/0/14` in the system
/// `urn:caresync:plan:PLAN-ID:administration`. The same outcome always gets the same
/// identifier, so conditional create makes sending it again a no-op; a later outcome of
/// the same event gets a new one. An order that has no business identifier is named in
/// `urn:caresync:plan:PLAN-ID:order` by its reference as imported (`MedicationOrder/o1`).
/// A measurement is named by its sample id (`…:measurement`), its source's Device by the
/// source's id (`…:measurement-source`) and the patient by the care team's identifier, or the
/// plan id (`…:patient`).
public struct ExportIdentifiers: Sendable, Hashable {
    public var planID: String

    public init(planID: String) {
        self.planID = planID
    }

    public var administrationSystem: String { "urn:caresync:plan:\(planID):administration" }
    public var deviceSystem: String { "urn:caresync:plan:\(planID):device" }
    public var orderSystem: String { "urn:caresync:plan:\(planID):order" }
    public var patientSystem: String { "urn:caresync:plan:\(planID):patient" }
    public var measurementSystem: String { "urn:caresync:plan:\(planID):measurement" }
    public var sourceSystem: String { "urn:caresync:plan:\(planID):measurement-source" }

    /// The identifier of an exported measurement: its sample id.
    public func measurement(_ id: String) -> Identifier {
        Identifier(use: "official", system: measurementSystem, value: id)
    }

    /// The identifier of a measurement source's Device: its stable id.
    public func source(_ id: String) -> Identifier {
        Identifier(system: sourceSystem, value: id)
    }

    /// The identifier of the outcome of `event` recorded at `revision`.
    public func administration(_ event: EventKey, revision: Int) -> Identifier {
        Identifier(
            use: "official", system: administrationSystem,
            value: "\(event.activityID)/\(event.day)/\(event.occurrence)/\(revision)")
    }

    /// CareSync's identifier of an order that has none of its own: its reference as imported.
    public func order(_ reference: String) -> Identifier {
        Identifier(system: orderSystem, value: reference)
    }

    /// A reference to the device (node) that recorded an outcome.
    public func device(_ name: String) -> Reference {
        Reference(type: "Device", identifier: Identifier(system: deviceSystem, value: name), display: name)
    }

    /// The search `identifier=SYSTEM|VALUE`, escaped as FHIR search and a URL query need it.
    public static func search(_ identifier: Identifier) -> String {
        let token = [identifier.system ?? "", identifier.value ?? ""].map(escapeToken).joined(separator: "|")
        return "identifier=" + percentEncoded(token)
    }

    /// FHIR search escapes `\`, `|`, `,` and `$` in a token with a backslash.
    private static func escapeToken(_ text: String) -> String {
        text.reduce(into: "") { escaped, character in
            if "\\|,$".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
    }

    /// Everything but RFC 3986's unreserved characters is percent-encoded.
    private static func percentEncoded(_ text: String) -> String {
        text.utf8.reduce(into: "") { encoded, byte in
            let unreserved = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
            encoded += unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
    }
}
