import Foundation

/// The medication orders of a FHIR JSON document (a Bundle or a single resource), with the
/// patients it names. Medications referenced from orders are resolved while reading.
public struct FHIRInput: Sendable {
    public var orders: [ImportedOrder] = []
    /// Patients by reference (`Patient/p1`) and by full URL.
    public var patients: [String: Patient] = [:]

    public init() {}

    /// Reads `data`; any element CareSync uses that is malformed fails the whole document.
    public static func parse(_ data: Data) throws(FHIRError) -> FHIRInput {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .notJSON(String(describing: (error as? DecodingError).map(\.localizedDescription) ?? "\(error)"))
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
