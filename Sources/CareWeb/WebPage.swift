import Hummingbird
import Markup

/// One page of the app: the document around its content, with the navigation, the language
/// switch, the sign-out button and the live-update hooks (`data-revision`, the connection
/// banner) that `app.js` uses. Everything works without the script.
struct WebPage {
    /// The app's sections, in the navigation's order.
    enum Section: String, CaseIterable {
        case careCard = "/"
        case symptoms = "/symptoms"
        case medications = "/medications"
        case insights = "/insights"
        case connect = "/connect"
        case devices = "/devices"

        func title(_ words: WebWords) -> String {
            switch self {
            case .careCard: words["careCard", "title"]
            case .symptoms: words["symptoms", "title"]
            case .medications: words["medications", "title"]
            case .insights: words["insights", "title"]
            case .connect: words["connect", "title"]
            case .devices: words["devices", "title"]
            }
        }
    }

    var title: String
    var section: Section?
    var context: WebContext
    /// The store revision the content shows: a live update newer than it refreshes the page.
    var revision: Int?
    /// A message at the top of the content: what just failed, or what just happened.
    var notice: Notice?

    struct Notice {
        var text: String
        var isError: Bool
    }

    /// The page as an HTML response.
    func response(status: HTTPResponse.Status = .ok, _ content: (inout Markup) -> Void) -> Response {
        var html = Markup()
        html.raw("<!DOCTYPE html>")
        let words = context.words
        html.element("html", ["lang": words.code]) { html in
            html.element("head") { head in
                head.empty("meta", ["charset": "utf-8"])
                head.empty("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
                head.element("title", text: "\(title) · CareSync")
                head.empty("link", ["rel": "stylesheet", "href": WebAssets.stylesheetPath])
                head.element("script", ["src": WebAssets.scriptPath, "defer": "defer"]) { _ in }
            }
            html.element("body") { body in
                body.element("a", ["class": "skip", "href": "#main"], text: words["skipToContent"])
                header(&body)
                body.element("p", ["id": "connection", "class": "connection", "role": "status", "hidden": "hidden"],
                             text: words["live", "lost"])
                if let alert = context.backupAlert {
                    body.element("p", ["id": "backup-alert", "class": "notice error banner", "role": "alert"], text: alert)
                }
                body.element("main", ["id": "main", "data-revision": revision.map(String.init) ?? ""]) { main in
                    main.element("h1", text: title)
                    if let notice {
                        main.element("p", ["class": notice.isError ? "notice error" : "notice", "role": notice.isError ? "alert" : "status"],
                                     text: notice.text)
                    }
                    content(&main)
                }
            }
        }
        return .html(html.text, status: status)
    }

    private func header(_ body: inout Markup) {
        let words = context.words
        body.element("header", ["class": "top"]) { header in
            header.element("p", ["class": "brand"], text: "CareSync")
            if context.signedIn != nil {
                header.element("nav", ["aria-label": words["sections"]]) { nav in
                    nav.element("ul") { list in
                        for item in Section.allCases {
                            list.element("li") { li in
                                if item == section {
                                    li.element("a", ["href": item.rawValue, "aria-current": "page"], text: item.title(words))
                                } else {
                                    li.element("a", ["href": item.rawValue], text: item.title(words))
                                }
                            }
                        }
                    }
                }
            }
            header.element("div", ["class": "account"]) { account in
                account.element("nav", ["aria-label": words["languages"]]) { nav in
                    for other in WebLanguages.all {
                        if other.code == words.code {
                            nav.element("span", ["lang": other.code, "aria-current": "true"], text: other["languageName"])
                        } else {
                            nav.element("a", ["lang": other.code, "href": "?lang=\(other.code)"], text: other["languageName"])
                        }
                    }
                }
                if let signedIn = context.signedIn {
                    if !signedIn.session.access.mayRecord {
                        account.element("span", ["class": "badge"], text: words["readOnlyBadge"])
                    }
                    account.element("form", ["method": "post", "action": "/sign-out"]) { form in
                        form.csrf(signedIn)
                        form.element("button", ["type": "submit", "class": "link"], text: words["signOut"])
                    }
                }
            }
        }
    }
}

extension Markup {
    /// The hidden field that proves a form came from one of this session's pages.
    mutating func csrf(_ signedIn: SignedIn) {
        empty("input", ["type": "hidden", "name": "csrf", "value": signedIn.secret.csrfToken])
    }
}

extension Response {
    /// An HTML document, never cached.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// See other: where a form goes once it has done its work. Only ever a path of this app
    /// (``localPath(_:otherwise:)``): `//host/…` or `/\host/…` would send the browser away.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: localPath(location), .cacheControl: "no-store"])
    }
}
