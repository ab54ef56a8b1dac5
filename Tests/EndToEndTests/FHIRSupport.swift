import Foundation

/// `scripts/fhir-validate`: fhir.resources' R4B models and fhirclient 4.x's R4 models, or with
/// `dstu2` fhirclient's DSTU2 models, in their own virtual environments.
enum FHIRValidator {
    static func validate(_ files: String..., dstu2: Bool = false) async throws -> CareSyncCommand.Result {
        try await run((dstu2 ? ["--dstu2"] : []) + files)
    }

    /// The resource types of R4 (R4B's models) or DSTU2 (fhirclient's), as the validator lists them.
    static func resourceTypes(dstu2: Bool) async throws -> Set<String> {
        let result = try await run((dstu2 ? ["--dstu2"] : []) + ["--resource-types"])
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return Set(result.lines)
    }

    private static func run(_ arguments: [String]) async throws -> CareSyncCommand.Result {
        try await CareSyncCommand.run(
            executable: CareSyncCommand.repository.appendingPathComponent("scripts/fhir-validate"), arguments)
    }
}

/// The resource types a FHIR JSON document's References name, each with the reference or
/// `type` it came from: the type before `/` or `?` of every `reference`, and every string
/// `type` of an object that is not a resource (a Bundle's `type` is no Reference's).
func referencedTypes(_ json: Any) -> [(type: String, from: String)] {
    if let list = json as? [Any] { return list.flatMap(referencedTypes) }
    guard let object = json as? [String: Any] else { return [] }
    var found = object.values.flatMap(referencedTypes)
    if let reference = object["reference"] as? String {
        found.append((String(reference.prefix { $0 != "/" && $0 != "?" }), reference))
    }
    if object["resourceType"] == nil, let type = object["type"] as? String { found.append((type, "type \(type)")) }
    return found
}

/// A JSON object's value at a path of keys and indexes, such as `["entry", 0, "resource"]`.
func value(_ json: Any?, _ path: Any...) -> Any? {
    path.reduce(json) { current, step in
        if let key = step as? String { return (current as? [String: Any])?[key] }
        if let index = step as? Int, let list = current as? [Any], list.indices.contains(index) { return list[index] }
        return nil
    }
}
