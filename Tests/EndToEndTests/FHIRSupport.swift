import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `scripts/fhir-test-server` as a process on a port of its choosing, on loopback.
final class FHIRServerProcess: Sendable {
    let process: RunningProcess
    /// The base URL.
    let url: String

    init(_ arguments: String...) throws {
        let script = CareSyncCommand.repository.appendingPathComponent("scripts/fhir-test-server")
        process = try RunningProcess(script, arguments)
        guard let line = process.waitForLine(where: { $0.hasPrefix("listening 127.0.0.1 ") }),
              let port = line.split(separator: " ").last.flatMap({ Int($0) })
        else {
            process.stop()
            throw ServerDidNotStart(output: process.output)
        }
        url = "http://127.0.0.1:\(port)/"
    }

    struct ServerDidNotStart: Error, CustomStringConvertible {
        var output: [String]
        var description: String { "fhir-test-server did not start: \(output.joined(separator: "\n"))" }
    }

    /// `GET path` decoded as JSON.
    func get(_ path: String) async throws -> Any {
        let (data, _) = try await URLSession.shared.data(from: URL(string: url + path)!)
        return try JSONSerialization.jsonObject(with: data)
    }

    /// The resources a search finds.
    func search(_ query: String) async throws -> [[String: Any]] {
        let bundle = try await get(query) as? [String: Any]
        return (bundle?["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
    }

    /// Every request received so far: its method, the status answered, and the number of
    /// entries of the Bundle it carried.
    func requests() async throws -> [(method: String, status: Int?, entries: Int)] {
        (try await get("_requests") as? [[String: Any]] ?? []).map {
            ($0["method"] as? String ?? "", $0["status"] as? Int, (value($0, "body", "entry") as? [Any])?.count ?? 0)
        }
    }

    deinit { process.stop() }
}

/// `scripts/fhir-validate`: fhir.resources' R4B models in their own virtual environment.
enum FHIRValidator {
    static func validate(_ files: String...) throws -> CareSyncCommand.Result {
        try CareSyncCommand.run(
            executable: CareSyncCommand.repository.appendingPathComponent("scripts/fhir-validate"), files)
    }
}

/// A JSON object's value at a path of keys and indexes, such as `["entry", 0, "resource"]`.
func value(_ json: Any?, _ path: Any...) -> Any? {
    path.reduce(json) { current, step in
        if let key = step as? String { return (current as? [String: Any])?[key] }
        if let index = step as? Int, let list = current as? [Any], list.indices.contains(index) { return list[index] }
        return nil
    }
}
