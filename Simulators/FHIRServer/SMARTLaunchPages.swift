import Foundation
import Hummingbird

/// The pages a person sees at ``SMARTLaunchAuthority``'s authorization server: the login, the
/// consent, a refusal told to the person, and the redirect back to the app.
enum LaunchPages {
    /// The login form of the authorization request `request` (saying the last try was wrong).
    static func login(request: String, wrong: Bool) -> Response {
        html(200, "Sign in to your health record", """
            \(wrong ? "<p id=\"wrong\" role=\"alert\">Wrong user name or password.</p>" : "")
            <form method="post" action="\(SMARTLaunchAuthority.loginPath)"><input type="hidden" name="request" value="\(request)">
            <label>User name <input name="username" id="username" autocomplete="username"></label>
            <label>Password <input name="password" id="password" type="password" autocomplete="current-password"></label>
            <button id="sign-in">Sign in</button></form>
            """)
    }

    /// Whether the patient allows `client` the scopes of `scope` (space-separated).
    static func consent(client: String, scope: String, request: String) -> Response {
        let scopes = scope.split(separator: " ").map { "<li><code>\(escaped(String($0)))</code></li>" }.joined()
        return html(200, "Allow access?", """
            <p>The app <strong>\(escaped(client))</strong> asks for access to your record:</p><ul id="scopes">\(scopes)</ul>
            <form method="post" action="\(SMARTLaunchAuthority.consentPath)"><input type="hidden" name="request" value="\(request)">
            <button name="decision" value="allow" id="allow">Allow</button> <button name="decision" value="deny" id="deny">Deny</button></form>
            """)
    }

    /// A page that only says `text`.
    static func message(_ status: Int, _ title: String, _ text: String) -> Response {
        html(status, title, "<p>\(escaped(text))</p>")
    }

    /// Back to the app at `uri`, with `parameters` added to its query.
    static func redirect(_ uri: String, _ parameters: [String: String]) -> Response {
        var components = URLComponents(string: uri)
        let existing = components?.queryItems ?? []
        components?.queryItems = existing + parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return .body(302, Data(), contentType: "text/plain", headers: [.location: components?.string ?? uri])
    }

    private static func html(_ status: Int, _ title: String, _ body: String) -> Response {
        let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(escaped(title))</title><style>body{font:16px system-ui;margin:2em auto;max-width:30em;padding:0 1em}
            label{display:block;margin:.8em 0}input{display:block;font:inherit;padding:.4em;width:100%}button{font:inherit;padding:.5em 1.2em}
            header{background:#1d4e89;color:#fff;padding:.6em 1em;margin:-2em -1em 1em}</style></head>
            <body><header>Test Health Record</header><h1>\(escaped(title))</h1>\(body)</body></html>
            """
        return .body(status, Data(page.utf8), contentType: "text/html; charset=utf-8", headers: [.cacheControl: "no-store"])
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
