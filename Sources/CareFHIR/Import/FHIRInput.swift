import Foundation
import StrictJSON

/// The medication orders of a FHIR JSON document (a Bundle or a single resource), with the
/// patients it names. Medications referenced from orders are resolved while reading.
public struct FHIRInput: Sendable {
    public var orders: [ImportedOrder] = []
    /// Patients by reference (`Patient/p1`) and by full URL.
    public var patients: [String: Patient] = [:]
    /// Orders (and resources they need) that could not be read, each with its path and
    /// reason: everything else was read.
    public var refused: [ImportRefusal] = []

    public init() {}

    /// Reads `data`, standard JSON only. A document that is not JSON or not a FHIR resource
    /// is refused whole; in a Bundle, an order with a malformed element CareSync uses is
    /// refused alone (``refused``) and the others are read. Elements CareSync does not know
    /// are kept, as FHIR requires. Errors and refusals name `document` (a file or URL).
    public static func parse(_ data: Data, document: String? = nil) throws(FHIRError) -> FHIRInput {
        do {
            var input = try parse(data)
            for index in input.orders.indices { input.orders[index].document = document }
            for index in input.refused.indices { input.refused[index].document = document }
            return input
        } catch {
            throw error.inDocument(document)
        }
    }

    private static func parse(_ data: Data) throws(FHIRError) -> FHIRInput {
        let root: JSONValue
        do {
            try JSONSyntax.check(data)
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let error as JSONSyntaxError {
            throw .notJSON(error)
        } catch {
            // Standard JSON that Foundation cannot read, such as a number beyond Decimal's range.
            throw .invalid(path: "$", "cannot be read: \(error)")
        }
        guard let type = root["resourceType"]?.string else {
            throw .invalid(path: "$", "expected a FHIR resource with a resourceType")
        }
        guard type == "Bundle" else {
            guard ["MedicationRequest", "MedicationOrder"].contains(type) else {
                throw .unsupportedResource(path: type, type: type)
            }
            return read([(type, root, nil)])
        }
        let entries = (root["entry"]?.array ?? []).enumerated().compactMap { index, entry in
            entry["resource"].map { ("Bundle.entry[\(index)].resource", $0, entry["fullUrl"]?.string) }
        }
        return read(entries)
    }

    private static func read(_ resources: [(path: String, value: JSONValue, fullUrl: String?)]) -> FHIRInput {
        var input = FHIRInput()
        var medications: [String: (medication: Medication, modifiers: [ModifierExtension])] = [:]
        for (path, value, fullUrl) in resources {
            do throws(FHIRError) {
                switch value["resourceType"]?.string {
                case "Medication":
                    let medication = try decode(Medication.self, value, at: path)
                    let modifiers = ModifierExtension.find(in: value, at: path)
                    for key in [medication.id.map { "Medication/\($0)" }, fullUrl].compactMap({ $0 }) {
                        medications[key] = (medication, modifiers)
                    }
                case "Patient":
                    let patient = try decode(Patient.self, value, at: path)
                    for key in [patient.id.map { "Patient/\($0)" }, fullUrl].compactMap({ $0 }) { input.patients[key] = patient }
                default: continue
                }
            } catch {
                input.refused.append(ImportRefusal(error, document: nil))
            }
        }
        var keys = ContentKeys()
        for (path, value, _) in resources {
            guard let type = value["resourceType"]?.string, ["MedicationRequest", "MedicationOrder"].contains(type) else { continue }
            let contentKey = keys.key(for: value)
            do throws(FHIRError) {
                var order = type == "MedicationRequest"
                    ? try ImportedOrder(decode(MedicationRequest.self, value, at: path), payload: value.data, path: path,
                                        medications: medications.mapValues(\.medication), contentKey: contentKey)
                    : try ImportedOrder(decode(MedicationOrder.self, value, at: path), payload: value.data, path: path,
                                        medications: medications.mapValues(\.medication), contentKey: contentKey)
                let referenced = value["medicationReference"]?["reference"]?.string.flatMap { medications[$0]?.modifiers } ?? []
                order.modifierExtensions = ModifierExtension.find(in: value, at: path) + referenced
                input.orders.append(order)
            } catch {
                input.refused.append(ImportRefusal(error, document: nil))
            }
        }
        return input
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue, at path: String) throws(FHIRError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: value.data)
        } catch let error as DecodingError {
            throw FHIRError(error, at: path)
        } catch {
            throw .invalid(path: path, "\(error)")
        }
    }
}
