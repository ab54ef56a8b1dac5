import Foundation

/// A FHIR resource as JSON; only ever touched under the server's lock.
struct Resource: @unchecked Sendable {
    var object: [String: Any]
}

/// The resources by type and id, with FHIR's search by identifier and patient.
struct ResourceStore: Sendable {
    struct Key: Hashable, Comparable, Sendable {
        var type: String
        var id: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.type, lhs.id) < (rhs.type, rhs.id) }
    }

    /// A type and an identifier's value: what a search by identifier looks up.
    private struct IdentifierKey: Hashable {
        var type: String
        var value: String
    }

    var resources: [Key: Resource] = [:]
    var nextID = 1
    /// The resources holding each identifier value, so that a conditional create does not
    /// read every resource of its type (the benchmark sends tens of thousands).
    private var byIdentifier: [IdentifierKey: Set<Key>] = [:]

    /// The resources of `type` that match every (name, value) of `query`, by id.
    func search(_ type: String, _ query: [(String, String)]) throws -> [Resource] {
        let candidates = if let identifier = query.first(where: { $0.0 == "identifier" }) {
            Array(byIdentifier[IdentifierKey(type: type, value: Self.splitToken(identifier.1).value)] ?? [])
        } else {
            resources.keys.filter { $0.type == type }
        }
        var found = candidates.sorted().compactMap { resources[$0] }
        for (name, value) in query {
            found = try found.filter { try Self.matches($0.object, name, value) }
        }
        return found
    }

    private static func matches(_ resource: [String: Any], _ name: String, _ value: String) throws -> Bool {
        switch name {
        case "identifier":
            let (system, code) = splitToken(value)
            return (resource["identifier"] as? [[String: Any]] ?? []).contains {
                $0["value"] as? String == code && (system == nil || $0["system"] as? String == system)
            }
        case "patient", "subject":
            let reference = ((resource["subject"] ?? resource["patient"]) as? [String: Any])?["reference"] as? String ?? ""
            return reference == value || reference == "Patient/\(value)"
        default:
            throw Refusal(status: 400, text: "the test server cannot search by \(name)")
        }
    }

    /// `SYSTEM|VALUE` as FHIR search escapes it (`\|`, `\,`, `\$`, `\\`) into its two parts.
    private static func splitToken(_ token: String) -> (system: String?, value: String) {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in token {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" && parts.isEmpty {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        return parts.isEmpty ? (nil, current) : (parts[0], current)
    }

    /// The resources that `includes` (`Type:medication`, `Type:patient`, `Type:subject`)
    /// name from `matches`, each once.
    func included(by matches: [Resource], type: String, _ includes: [String]) throws -> [Resource] {
        var keys: [Key] = []
        for include in includes {
            let element: [String] = switch include {
            case "\(type):medication": ["medicationReference"]
            case "\(type):patient", "\(type):subject": ["subject", "patient"]
            default: throw Refusal(status: 400, text: "the test server cannot include \(include)")
            }
            for match in matches {
                let reference = element.lazy.compactMap { (match.object[$0] as? [String: Any])?["reference"] as? String }.first
                let parts = reference?.split(separator: "/").map(String.init) ?? []
                if parts.count == 2, resources[Key(type: parts[0], id: parts[1])] != nil, !keys.contains(Key(type: parts[0], id: parts[1])) {
                    keys.append(Key(type: parts[0], id: parts[1]))
                }
            }
        }
        return keys.compactMap { resources[$0] }
    }

    /// Takes in the resources of `document`, a Bundle or a single resource.
    mutating func load(_ document: [String: Any]) {
        let entries = document["resourceType"] as? String == "Bundle" ? document["entry"] as? [[String: Any]] ?? [] : [["resource": document]]
        for resource in entries.compactMap({ $0["resource"] as? [String: Any] }) {
            var undo: [Change] = []
            _ = put(resource["resourceType"] as? String ?? "", resource, id: resource["id"] as? String, undo: &undo)
        }
    }

    /// Writes every resource to `file` as a collection Bundle, in one piece.
    func save(to file: String) throws {
        let entries = resources.sorted { $0.key < $1.key }.map { ["resource": $0.value.object] }
        let bundle: [String: Any] = ["resourceType": "Bundle", "type": "collection", "entry": entries]
        try JSONSerialization.data(withJSONObject: bundle, options: [.sortedKeys]).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    /// A resource as it was before a transaction replaced it (`nil`: there was none).
    typealias Change = (key: Key, previous: Resource?)

    /// Stores `resource` under `id` (a new one if `nil`), a version higher than before, and
    /// adds what it replaced to `undo`.
    mutating func put(_ type: String, _ resource: [String: Any], id: String?, undo: inout [Change]) -> [String: Any] {
        let id = id ?? {
            while resources[Key(type: type, id: "\(nextID)")] != nil { nextID += 1 }
            defer { nextID += 1 }
            return "\(nextID)"
        }()
        let key = Key(type: type, id: id)
        let previous = resources[key]
        let version = ((previous?.object["meta"] as? [String: Any])?["versionId"] as? String).flatMap { Int($0) }.map { $0 + 1 } ?? 1
        var stored = resource
        stored["id"] = id
        stored["meta"] = ["versionId": "\(version)"]
        undo.append((key, previous))
        replace(key, with: Resource(object: stored))
        return ["status": previous == nil ? "201 Created" : "200 OK", "location": "\(type)/\(id)/_history/\(version)"]
    }

    /// Sets the resource under `key`, keeping the identifier index up to date.
    private mutating func replace(_ key: Key, with resource: Resource?) {
        for value in Self.identifierValues(resources[key]?.object ?? [:]) { byIdentifier[IdentifierKey(type: key.type, value: value)]?.remove(key) }
        for value in Self.identifierValues(resource?.object ?? [:]) { byIdentifier[IdentifierKey(type: key.type, value: value), default: []].insert(key) }
        resources[key] = resource
    }

    private static func identifierValues(_ resource: [String: Any]) -> [String] {
        (resource["identifier"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
    }

    /// Applies a transaction or batch Bundle whole, or nothing of it.
    mutating func transaction(_ bundle: [String: Any]) throws -> [String: Any] {
        guard bundle["resourceType"] as? String == "Bundle", let kind = bundle["type"] as? String,
              ["transaction", "batch"].contains(kind)
        else { throw Refusal(status: 400, text: "expected a transaction or batch Bundle") }
        // Undone entry by entry on a failure: a copy of the whole store per transaction made
        // the server, not the client, what the benchmark's export measured.
        var undo: [Change] = []
        var responses: [[String: Any]] = []
        do {
            for entry in bundle["entry"] as? [[String: Any]] ?? [] {
                responses.append(["response": try apply(entry, undo: &undo)])
            }
        } catch {
            for change in undo.reversed() { replace(change.key, with: change.previous) }
            throw error
        }
        return ["resourceType": "Bundle", "type": "\(kind)-response", "entry": responses]
    }

    private mutating func apply(_ entry: [String: Any], undo: inout [Change]) throws -> [String: Any] {
        let request = entry["request"] as? [String: Any] ?? [:]
        let resource = entry["resource"] as? [String: Any] ?? [:]
        let target = URLComponents(string: request["url"] as? String ?? "")
        let path = (target?.path ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        let type = parts.first ?? ""
        guard resource["resourceType"] as? String == type else {
            throw Refusal(status: 400, text: "entry for \(path) holds a \(resource["resourceType"] ?? "nothing")")
        }
        switch request["method"] as? String {
        case "POST":
            let condition = URLComponents(string: "?" + (request["ifNoneExist"] as? String ?? ""))?.queryItems ?? []
            let existing = condition.isEmpty ? [] : try search(type, condition.map { ($0.name, $0.value ?? "") })
            guard existing.count <= 1 else { throw Refusal(status: 412, text: "ifNoneExist matches \(existing.count) resources") }
            if let match = existing.first { return ["status": "200 OK", "location": "\(type)/\(match.object["id"] ?? "")"] }
            return put(type, resource, id: nil, undo: &undo)
        case "PUT":
            var id = parts.count > 1 ? parts[1] : nil
            if let query = target?.queryItems, !query.isEmpty {
                let existing = try search(type, query.map { ($0.name, $0.value ?? "") })
                guard existing.count <= 1 else { throw Refusal(status: 412, text: "conditional update matches \(existing.count) resources") }
                id = existing.first?.object["id"] as? String
            }
            return put(type, resource, id: id, undo: &undo)
        default:
            throw Refusal(status: 400, text: "the test server does not process \(request["method"] ?? "no") entries")
        }
    }
}

