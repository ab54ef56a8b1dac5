import AsyncHTTPClient
import Foundation
import NIOCore

/// A patient at the test server's login and consent pages (``SMARTLaunchAuthority``), as a
/// browser without scripts would be: signs in and allows (or denies), and returns where the
/// server sends them back. For tests of SMART App Launch clients.
public enum PatientAtTheDoor {
    /// The pages did not end in a redirect: the page they stopped on.
    public struct Stopped: Error, CustomStringConvertible {
        public var description: String
    }

    /// The redirect the authorization server answers at the end, or the page it stopped on.
    public static func signIn(
        at authorizeURL: String, user: String = "pat", password: String = "secret", allow: Bool = true
    ) async throws -> URLComponents {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        defer { _ = client.shutdown() }
        let origin = authorizeURL.components(separatedBy: "/auth/").first ?? ""
        let (_, login, _) = try await request(client, authorizeURL)
        let id = try field("request", in: login)
        let (_, consent, _) = try await request(client, origin + "/auth/login", form: ["request": id, "username": user, "password": password])
        let consentID = try field("request", in: consent)
        let (status, page, location) = try await request(
            client, origin + "/auth/consent", form: ["request": consentID, "decision": allow ? "allow" : "deny"])
        guard status == 302, let location, let components = URLComponents(string: location) else {
            throw Stopped(description: "no redirect (HTTP \(status)): \(page)")
        }
        return components
    }

    /// The status, body and `Location` of one request.
    private static func request(_ client: HTTPClient, _ url: String, form: [String: String]? = nil) async throws -> (Int, String, String?) {
        var request = HTTPClientRequest(url: url)
        if let form {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let body = form.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $1)" }.joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body), response.headers.first(name: "Location"))
    }

    /// The value of the hidden field `name` of a page's form.
    private static func field(_ name: String, in page: String) throws -> String {
        guard let range = page.range(of: "name=\"\(name)\" value=\""),
              let end = page[range.upperBound...].firstIndex(of: "\"")
        else { throw Stopped(description: "no \(name) on the page: \(page)") }
        return String(page[range.upperBound..<end])
    }
}

extension URLComponents {
    /// The value of the query item `name`.
    public func query(_ name: String) -> String? { queryItems?.first { $0.name == name }?.value }
}
