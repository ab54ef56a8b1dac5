import Foundation
import StrictJSON

/// The medication orders of a FHIR JSON document (a Bundle or a single resource), with the
/// patients it names. Medications referenced from orders are resolved while reading.
public struct FHIRInput: Sendable {
    public var orders: [ImportedOrder] = []
    /// Patients by reference (`Patient/p1`) and by full URL.
    public var patients: [String: Patient] = [:]

    public init() {}

    /// Reads `data`, standard JSON only; any element CareSync uses that is malformed fails the
    /// whole document. Elements it does not know are kept, as FHIR requires. Errors name
    /// `document` (a file or URL), and so do those of mapping its orders.
    public static func parse(_ data: Data, document: String? = nil) throws(FHIRError) -> FHIRInput {
        do {
            var input = try parse(data)
            for index in input.orders.indices { input.orders[index].document = document }
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
            return try read([(type, root, nil)])
        }
        let entries = (root["entry"]?.array ?? []).enumerated().compactMap { index, entry in
            entry["resource"].map { ("Bundle.entry[\(index)].resource", $0, entry["fullUrl"]?.string) }
        }
        return try read(entries)
    }

    private static func read(_ resources: [(path: String, value: JSONValue, fullUrl: String?)]) throws(FHIRError) -> FHIRInput {
        var input = FHIRInput()
        var medications: [String: Medication] = [:]
        for (path, value, fullUrl) in resources {
            switch value["resourceType"]?.string {
            case "Medication":
                let medication = try decode(Medication.self, value, at: path)
                for key in [medication.id.map { "Medication/\($0)" }, fullUrl].compactMap({ $0 }) { medications[key] = medication }
            case "Patient":
                let patient = try decode(Patient.self, value, at: path)
                for key in [patient.id.map { "Patient/\($0)" }, fullUrl].compactMap({ $0 }) { input.patients[key] = patient }
            default: continue
            }
        }
        for (path, value, _) in resources {
            switch value["resourceType"]?.string {
            case "MedicationRequest":
                let request = try decode(MedicationRequest.self, value, at: path)
                input.orders.append(try ImportedOrder(request, payload: value.data, path: path, medications: medications))
            case "MedicationOrder":
                let order = try decode(MedicationOrder.self, value, at: path)
                input.orders.append(try ImportedOrder(order, payload: value.data, path: path, medications: medications))
            default: continue
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
