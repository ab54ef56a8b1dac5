import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// The requests a client makes of an OAuth 2.0 authorization server: reading its discovery
/// document, posting forms to its token and revocation endpoints. Neither a request nor an
/// answer is logged: both can carry secrets.
public struct OAuthRequests: Sendable {
    /// How long one request may take.
    public var timeout: Duration
    /// Told of what the HTTP client does in the background.
    public var logger: Logger

    public init(timeout: Duration = .seconds(30), logger: Logger = Logger(label: "caresync.fhir", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.timeout = timeout
        self.logger = logger
    }

    /// The status and body of `GET url` (JSON), or why the server could not be asked. A
    /// redirect is followed (up to three) only where it stays on the same scheme, host and
    /// port: one elsewhere is answered as it came.
    func get(_ url: String, redirectsLeft: Int = 3) async -> Result<(status: Int, body: Data), OAuthUnreachable> {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let answer = await exchange(request, url: url)
        if redirectsLeft > 0, case .success(let reply) = answer, [301, 302, 303, 307, 308].contains(reply.status),
           let location = reply.location, let next = SignInEndpoint.sameOrigin(location, of: url) {
            return await get(next.absoluteString, redirectsLeft: redirectsLeft - 1)
        }
        return answer.map { ($0.status, $0.body) }
    }

    /// The status and body of posting `form` to `url` (`application/x-www-form-urlencoded`).
    func post(_ url: String, form: [(String, String)]) async -> Result<(status: Int, body: Data), OAuthUnreachable> {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.formEncoded(form)))
        return await exchange(request, url: url).map { ($0.status, $0.body) }
    }

    private func exchange(
        _ request: HTTPClientRequest, url: String
    ) async -> Result<(status: Int, body: Data, location: String?), OAuthUnreachable> {
        let timeout = TimeAmount(timeout)
        return await HTTPClient.withFailingFastClient(logger: logger) { client in
            do {
                let response = try await client.execute(request, timeout: timeout)
                let body = try await response.body.collect(upTo: 1 << 20)
                return .success((Int(response.status.code), Data(body.readableBytesView), response.headers.first(name: "Location")))
            } catch {
                return .failure(OAuthUnreachable(url: url, detail: HTTPClient.describe(error)))
            }
        }
    }

    /// `form` as `application/x-www-form-urlencoded`.
    static func formEncoded(_ form: [(String, String)]) -> String {
        form.map { "\($0)=\(percentEncoded($1))" }.joined(separator: "&")
    }

    /// `value` with every character but the unreserved ones (RFC 3986) percent-encoded.
    static func percentEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}

/// An authorization server that could not be asked: where, and why.
struct OAuthUnreachable: Error {
    var url: String
    var detail: String
}

/// A token endpoint's success answer (RFC 6749 section 5.1), with SMART's launch context.
struct TokenResponse: Decodable {
    var access_token: String
    var token_type: String
    var expires_in: Int?
    var refresh_token: String?
    var scope: String?
    var patient: String?
}

/// An authorization server's error answer (RFC 6749 section 5.2).
struct OAuthError: Decodable {
    var error: String
    var error_description: String?

    /// The error, with its description when there is one.
    var text: String { [error, error_description].compactMap { $0 }.joined(separator: ": ") }

    /// The error in `body`, if it holds one.
    static func from(_ body: Data) -> OAuthError? { try? JSONDecoder().decode(OAuthError.self, from: body) }
}
