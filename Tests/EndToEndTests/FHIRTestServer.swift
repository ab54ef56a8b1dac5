import Foundation

/// A FHIR server stand-in: a Python process on 127.0.0.1 that answers the search
/// `/fhir/MedicationRequest?patient=p1` with the example bundle's entries as a search set
/// of two pages, and 404 otherwise. It logs each request path on stdout.
struct FHIRTestServer {
    let process: RunningProcess
    let base: String

    static let script = #"""
        import json, sys
        from http.server import BaseHTTPRequestHandler, HTTPServer
        entries = json.load(open(sys.argv[1]))["entry"]
        pages = {"1": entries[:4], "2": entries[4:]}
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                print("GET " + self.path, flush=True)
                path, _, query = self.path.partition("?")
                params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
                if path != "/fhir/MedicationRequest" or params.get("patient") != "p1":
                    self.send_error(404, "Not Found")
                    return
                page = params.get("page", "1")
                bundle = {"resourceType": "Bundle", "type": "searchset", "entry": pages[page], "link": []}
                if page == "1":
                    bundle["link"].append({"relation": "next", "url": "http://127.0.0.1:%d/fhir/MedicationRequest?patient=p1&page=2" % self.server.server_port})
                body = json.dumps(bundle).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/fhir+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = HTTPServer(("127.0.0.1", 0), Handler)
        print("PORT %d" % server.server_port, flush=True)
        server.serve_forever()
        """#

    init(directory: Scratch, bundle: String) async throws {
        let script = directory.path("fhir-server.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        process = try await RunningProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, bundle])
        guard let line = await process.waitForLine(where: { $0.hasPrefix("PORT ") }) else {
            await process.stop()
            throw CommandFailed(result: .init(status: -1, stdout: process.output.joined(separator: "\n"), stderr: "no port"))
        }
        base = "http://127.0.0.1:\(line.dropFirst(5))/fhir"
    }

    /// The paths requested so far, in order.
    func requests() -> [String] {
        process.output.filter { $0.hasPrefix("GET ") }.map { String($0.dropFirst(4)) }
    }

    func stop() async { await process.stop() }

    /// Stops it without waiting (for a `defer`).
    func terminate(signal: Int32 = SIGKILL) {
        process.terminate(signal: signal)
    }
}
