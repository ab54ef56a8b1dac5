import Foundation
import StrictJSON

/// The FHIR documents the server reads and writes whole. Resources themselves stay
/// ``StrictJSON/JSONValue``s: the server keeps and echoes back resources of any type as it
/// received them, unknown elements included, and reads only the few elements it searches and
/// links by (`id`, `meta`, `identifier`, `subject`, `patient`, `medicationReference`).
enum FHIRDocument {
    /// An error answer.
    struct OperationOutcome: Encodable {
        struct Issue: Encodable {
            var severity = "error"
            var code: String
            var diagnostics: String
        }

        var resourceType = "OperationOutcome"
        var issue: [Issue]

        init(_ text: String, code: String = "processing") {
            issue = [Issue(code: code, diagnostics: text)]
        }
    }

    /// A transaction or batch Bundle as posted: each entry's request and resource.
    struct Transaction: Decodable {
        struct Entry: Decodable {
            var request: EntryRequest?
            var resource: JSONValue?
        }

        struct EntryRequest: Decodable {
            var method: String?
            var url: String?
            var ifNoneExist: String?
        }

        var resourceType: String?
        var type: String?
        var entry: [Entry]?
    }

    /// The answer to a transaction or batch: each entry's status and location.
    struct TransactionResponse: Encodable {
        struct Entry: Encodable {
            var response: EntryResponse
        }

        struct EntryResponse: Encodable {
            var status: String
            var location: String
        }

        var resourceType = "Bundle"
        var type: String
        var entry: [Entry]
    }

    /// One page of a search's results.
    struct SearchSet: Encodable {
        struct Entry: Encodable {
            struct Search: Encodable { var mode: String }

            var fullUrl: String
            var resource: JSONValue
            var search: Search

            init(_ resource: JSONValue, mode: String) {
                fullUrl = "\(resource["resourceType"]?.string ?? "")/\(resource["id"]?.string ?? "")"
                self.resource = resource
                search = Search(mode: mode)
            }
        }

        struct Link: Encodable {
            var relation: String
            var url: String
        }

        var resourceType = "Bundle"
        var type = "searchset"
        var total: Int
        var entry: [Entry]
        var link: [Link]?
    }

    /// What the state file holds: every resource, in a collection Bundle.
    struct Collection: Codable {
        struct Entry: Codable { var resource: JSONValue }

        var resourceType = "Bundle"
        var type = "collection"
        var entry: [Entry]
    }

    /// `value` as JSON with sorted keys, so the same answer always gives the same bytes.
    static func data(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)) ?? Data()
    }
}
