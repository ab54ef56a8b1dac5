import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StrictJSON

/// Reads from a FHIR server's REST API with AsyncHTTPClient.
public struct FHIRClient: Sendable {
    /// The server's base URL, such as `http://127.0.0.1:8080/fhir`.
    public var base: String
    /// How long one request may take.
    public var timeout: Duration
    /// Most pages of a search that are followed (`link` relation `next`).
    public var maximumPages: Int
    /// Told of what the HTTP client does in the background (silent unless given).
    public var logger: Logger
    /// Gives each request its `Authorization` (none without one); a request refused with 401
    /// is tried once more with a renewed one.
    public var authorizer: (any RequestAuthorizer)?

    public init(
        base: String, timeout: Duration = .seconds(30), maximumPages: Int = 100, authorizer: (any RequestAuthorizer)? = nil,
        logger: Logger = Logger(label: "caresync.fhir", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.timeout = timeout
        self.maximumPages = maximumPages
        self.authorizer = authorizer
        self.logger = logger
    }

    /// The medication orders of a patient: `GET [base]/MedicationRequest?patient=ID` (or
    /// `MedicationOrder` for a DSTU2 server), every page of the search set read, with the
    /// Medications the orders reference and the Patient (`_include`: a server returns only
    /// the resources searched for unless asked for those they reference).
    public func medicationOrders(patient: String, resource: String = "MedicationRequest") async throws(FHIRError) -> FHIRInput {
        let query = patient.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"])) ?? patient
        var next: String? = "\(base)/\(resource)?patient=\(query)&_include=\(resource):medication&_include=\(resource):patient"
        var input = FHIRInput()
        var pages = 0
        while let url = next, pages < maximumPages {
            let data = try await get(url)
            let page = try FHIRInput.parse(data, document: url)
            input.orders += page.orders
            input.refused += page.refused
            input.patients.merge(page.patients) { first, _ in first }
            next = try? JSONDecoder().decode(JSONValue.self, from: data)["link"]?.array?
                .first { $0["relation"]?.string == "next" }?["url"]?.string
            pages += 1
        }
        return input
    }

    /// The body of `GET url` with `Accept: application/fhir+json`; other statuses than 200
    /// fail, and so does an unreachable server, at once.
    public func get(_ url: String) async throws(FHIRError) -> Data {
        let result: Result<Data, FHIRError> = await HTTPClient.withFailingFastClient(logger: logger) { client in
            do throws(FHIRError) {
                return .success(try await get(url, with: client))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func get(_ url: String, with client: HTTPClient, renewing: Bool = false) async throws(FHIRError) -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/fhir+json")
        do {
            if let authorizer {
                guard let header = try await authorizer.authorization(renewing: renewing) else {
                    throw FHIRError.server(url: url, "HTTP 401: the server refused the authorization")
                }
                request.headers.add(name: "Authorization", value: header)
            }
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            let body = try await response.body.collect(upTo: 64 << 20)
            if response.status == .unauthorized, authorizer != nil, !renewing { return try await get(url, with: client, renewing: true) }
            guard response.status == .ok else {
                throw FHIRError.server(url: url, "HTTP \(response.status.code) \(response.status.reasonPhrase)")
            }
            return Data(body.readableBytesView)
        } catch let error as FHIRError {
            throw error
        } catch {
            throw .server(url: url, "\(error)")
        }
    }
}
