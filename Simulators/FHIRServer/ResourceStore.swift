import Foundation
import StrictJSON

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

    var resources: [Key: JSONValue] = [:]
    var nextID = 1
    /// The resources holding each identifier value, so that a conditional create does not
    /// read every resource of its type (the benchmark sends tens of thousands).
    private var byIdentifier: [IdentifierKey: Set<Key>] = [:]

    /// The resources of `type` that match every (name, value) of `query`, by id.
    func search(_ type: String, _ query: [(String, String)]) throws -> [JSONValue] {
        let candidates = if let identifier = query.first(where: { $0.0 == "identifier" }) {
            Array(byIdentifier[IdentifierKey(type: type, value: Self.splitToken(identifier.1).value)] ?? [])
        } else {
            resources.keys.filter { $0.type == type }
        }
        var found = candidates.sorted().compactMap { resources[$0] }
        for (name, value) in query {
            found = try found.filter { try Self.matches($0, name, value) }
        }
        return found
    }

    private static func matches(_ resource: JSONValue, _ name: String, _ value: String) throws -> Bool {
        switch name {
        case "identifier":
            let (system, code) = splitToken(value)
            return (resource["identifier"]?.array ?? []).contains {
                $0["value"]?.string == code && (system == nil || $0["system"]?.string == system)
            }
        case "patient", "subject":
            let reference = (resource["subject"] ?? resource["patient"])?["reference"]?.string ?? ""
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
    func included(by matches: [JSONValue], type: String, _ includes: [String]) throws -> [JSONValue] {
        var keys: [Key] = []
        for include in includes {
            let element: [String] = switch include {
            case "\(type):medication": ["medicationReference"]
            case "\(type):patient", "\(type):subject": ["subject", "patient"]
            default: throw Refusal(status: 400, text: "the test server cannot include \(include)")
            }
            for match in matches {
                let reference = element.lazy.compactMap { match[$0]?["reference"]?.string }.first
                let parts = reference?.split(separator: "/").map(String.init) ?? []
                if parts.count == 2, resources[Key(type: parts[0], id: parts[1])] != nil, !keys.contains(Key(type: parts[0], id: parts[1])) {
                    keys.append(Key(type: parts[0], id: parts[1]))
                }
            }
        }
        return keys.compactMap { resources[$0] }
    }

    /// Takes in the resources of `document`, a Bundle or a single resource.
    mutating func load(_ document: JSONValue) throws {
        guard document.object != nil else { throw Refusal(status: 400, text: "expected a JSON object") }
        let entries = document["resourceType"]?.string == "Bundle" ? document["entry"]?.array ?? [] : [["resource": document]]
        for resource in entries.compactMap({ $0["resource"]?.object }) {
            var undo: [Change] = []
            _ = put(resource["resourceType"]?.string ?? "", resource, id: resource["id"]?.string, undo: &undo)
        }
    }

    /// Writes every resource to `file` as a collection Bundle, in one piece.
    func save(to file: String) throws {
        let bundle = FHIRDocument.Collection(entry: resources.sorted { $0.key < $1.key }.map { .init(resource: $0.value) })
        try FHIRDocument.data(bundle).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    /// A resource as it was before a transaction replaced it (`nil`: there was none).
    typealias Change = (key: Key, previous: JSONValue?)

    /// Stores `resource` under `id` (a new one if `nil`), a version higher than before, and
    /// adds what it replaced to `undo`.
    mutating func put(
        _ type: String, _ resource: [String: JSONValue], id: String?, undo: inout [Change]
    ) -> FHIRDocument.TransactionResponse.EntryResponse {
        let id = id ?? {
            while resources[Key(type: type, id: "\(nextID)")] != nil { nextID += 1 }
            defer { nextID += 1 }
            return "\(nextID)"
        }()
        let key = Key(type: type, id: id)
        let previous = resources[key]
        let version = (previous?["meta"]?["versionId"]?.string).flatMap { Int($0) }.map { $0 + 1 } ?? 1
        var stored = resource
        stored["id"] = .string(id)
        stored["meta"] = ["versionId": .string("\(version)")]
        undo.append((key, previous))
        replace(key, with: .object(stored))
        return .init(status: previous == nil ? "201 Created" : "200 OK", location: "\(type)/\(id)/_history/\(version)")
    }

    /// Sets the resource under `key`, keeping the identifier index up to date.
    private mutating func replace(_ key: Key, with resource: JSONValue?) {
        for value in Self.identifierValues(resources[key]) { byIdentifier[IdentifierKey(type: key.type, value: value)]?.remove(key) }
        for value in Self.identifierValues(resource) { byIdentifier[IdentifierKey(type: key.type, value: value), default: []].insert(key) }
        resources[key] = resource
    }

    private static func identifierValues(_ resource: JSONValue?) -> [String] {
        (resource?["identifier"]?.array ?? []).compactMap { $0["value"]?.string }
    }

    /// Applies a transaction or batch Bundle whole, or nothing of it.
    mutating func transaction(_ bundle: FHIRDocument.Transaction) throws -> FHIRDocument.TransactionResponse {
        guard bundle.resourceType == "Bundle", let kind = bundle.type, ["transaction", "batch"].contains(kind) else {
            throw Refusal(status: 400, text: "expected a transaction or batch Bundle")
        }
        // Undone entry by entry on a failure: a copy of the whole store per transaction made
        // the server, not the client, what the benchmark's export measured.
        var undo: [Change] = []
        var responses: [FHIRDocument.TransactionResponse.Entry] = []
        do {
            for entry in bundle.entry ?? [] {
                responses.append(.init(response: try apply(entry, undo: &undo)))
            }
        } catch {
            for change in undo.reversed() { replace(change.key, with: change.previous) }
            throw error
        }
        return .init(type: "\(kind)-response", entry: responses)
    }

    private mutating func apply(
        _ entry: FHIRDocument.Transaction.Entry, undo: inout [Change]
    ) throws -> FHIRDocument.TransactionResponse.EntryResponse {
        let resource = entry.resource?.object ?? [:]
        let target = URLComponents(string: entry.request?.url ?? "")
        let path = (target?.path ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        let type = parts.first ?? ""
        guard resource["resourceType"]?.string == type else {
            throw Refusal(status: 400, text: "entry for \(path) holds a \(resource["resourceType"]?.string ?? "nothing")")
        }
        switch entry.request?.method {
        case "POST":
            let condition = URLComponents(string: "?" + (entry.request?.ifNoneExist ?? ""))?.queryItems ?? []
            let existing = condition.isEmpty ? [] : try search(type, condition.map { ($0.name, $0.value ?? "") })
            guard existing.count <= 1 else { throw Refusal(status: 412, text: "ifNoneExist matches \(existing.count) resources") }
            if let match = existing.first { return .init(status: "200 OK", location: "\(type)/\(match["id"]?.string ?? "")") }
            return put(type, resource, id: nil, undo: &undo)
        case "PUT":
            var id = parts.count > 1 ? parts[1] : nil
            if let query = target?.queryItems, !query.isEmpty {
                let existing = try search(type, query.map { ($0.name, $0.value ?? "") })
                guard existing.count <= 1 else { throw Refusal(status: 412, text: "conditional update matches \(existing.count) resources") }
                id = existing.first?["id"]?.string
            }
            return put(type, resource, id: id, undo: &undo)
        default:
            throw Refusal(status: 400, text: "the test server does not process \(entry.request?.method ?? "no") entries")
        }
    }
}
