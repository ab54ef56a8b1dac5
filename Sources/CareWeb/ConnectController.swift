import CarePlan
import CarePlanStore
import Hummingbird
import Markup

/// The contacts page (`/connect`), with the way to the health record where one can be connected.
struct ConnectController: Sendable {
    let store: CarePlanStore
    /// Whether the primary can connect a health record (``WebConfiguration/healthRecord``).
    let offersHealthRecord: Bool

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/connect") { request, context in try await connect(request, context) }
    }

    /// The contacts, care team first: each with a call, a message and an email link; and the
    /// way to the health record, when the primary can connect one.
    func connect(_ request: Request, _ context: WebContext) async throws -> Response {
        _ = try context.session()
        let revision = try await store.revision()
        let contacts = try await store.plan.contacts()
        let words = context.words
        let page = WebPage(title: words["connect", "title"], section: .connect, context: context, revision: revision)
        let healthRecord = offersHealthRecord
        return page.response { main in
            if healthRecord {
                main.element("p") {
                    $0.element("a", ["href": "/health-record", "class": "button secondary", "id": "health-record-link"], text: words["healthRecord", "title"])
                }
            }
            guard !contacts.isEmpty else {
                main.element("p", text: words["connect", "none"])
                return
            }
            for kind in ContactKind.allCases {
                let ofKind = contacts.filter { $0.kind == kind }
                guard !ofKind.isEmpty else { continue }
                main.element("h2", text: words["connect", kind.rawValue])
                main.element("ul", ["class": "cards"]) { list in
                    for contact in ofKind {
                        list.element("li", ["class": "card contact", "id": "contact-\(contact.identifier)"]) { card in
                            card.element("h3", text: contact.fullName)
                            if let detail = [contact.title, contact.relation].compactMap({ $0 }).first {
                                card.element("p", ["class": "instructions"], text: detail)
                            }
                            card.element("p", ["class": "links"]) { links in
                                if let phone = contact.phone {
                                    links.element("a", ["href": "tel:\(Self.dialable(phone))", "class": "button"],
                                                  text: words["connect", "call", values: ["number": phone]])
                                }
                                if let number = contact.messagingNumber {
                                    links.element("a", ["href": "sms:\(Self.dialable(number))", "class": "button secondary"],
                                                  text: words["connect", "message"])
                                }
                                if let email = contact.email {
                                    links.element("a", ["href": "mailto:\(email)", "class": "button secondary"], text: email)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A number as a `tel:` link takes it: digits and a leading plus.
    static func dialable(_ number: String) -> String {
        String(number.enumerated().filter { $0.element.isNumber || ($0.offset == 0 && $0.element == "+") }.map(\.element))
    }
}
