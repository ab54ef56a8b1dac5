import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Clocks
import Hummingbird
import Logging
import Markup
import NodeIdentity

/// The devices page (`/devices`): the paired devices and signed-in browsers, the codes made
/// for more, and the forms that revoke a device or sign a browser out.
struct DevicesController: Sendable {
    /// What it reads, the care core's part that opens codes and revokes devices and sessions,
    /// and the live streams, ended with the session of a browser signed out here.
    let store: CarePlanStore, access: DeviceAccess, live: LiveStreams
    let forms: SignedInForms, clock: any WallClock, logger: Logger

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/devices") { request, context in try await devices(request, context) }
        router.post("/devices/code") { request, context in try await makeCode(request, context) }
        router.post("/devices/revoke") { request, context in try await revokeDevice(request, context) }
        router.post("/devices/sign-out") { request, context in try await signOutBrowser(request, context) }
    }

    /// The paired devices and signed-in browsers, with when each was last seen; a caregiver
    /// may revoke them and make a pairing or sign-in code.
    /// A code made here is shown on `/devices?code=HANDLE` while it is open, to the session
    /// that made it only, so that reloading the page never makes another.
    func devices(_ request: Request, _ context: WebContext) async throws -> Response {
        let signedIn = try context.session()
        let shown = try await shownCode(request, signedIn)
        let revision = try await store.revision()
        let zone = try await store.plan.timeZone()
        let devices = try await store.devices.all()
        let sessions = try await store.webSessions.all().filter { $0.isValid(at: clock.now) }
        let words = context.words
        let when = { (date: Date) in words.moment(date, in: zone) }
        let lastSeen = { (date: Date?) in date.map { words["devices", "lastSeen", values: ["time": when($0)]] } ?? words["devices", "neverSeen"] }
        let page = WebPage(title: words["devices", "title"], section: .devices, context: context, revision: revision)
        return page.response { main in
            if let shown { shown.write(to: &main, words: words, zone: zone) }
            main.element("h2", text: words["devices", "paired"])
            if devices.isEmpty { main.element("p", text: words["devices", "noDevices"]) }
            main.element("ul", ["class": "cards"]) { list in
                for device in devices {
                    list.element("li", ["class": "card device", "data-device": device.id]) { card in
                        card.element("h3", text: device.name)
                        let role = words["devices", "roles", device.role.rawValue]
                            + (device.role == .household && !device.mayRecord ? " · " + words["devices", "readOnly"] : "")
                            + (device.standby ? " · " + words["devices", "standby"] : "")
                        card.element("p", text: role + " · " + NodeIdentity.display(device.id).prefix(19))
                        if let revoked = device.revokedAt {
                            card.element("p", ["class": "status"], text: words["devices", "revokedAt", values: ["time": when(revoked)]])
                            return
                        }
                        card.element("p", ["class": "status"], text: lastSeen(device.lastSeen))
                        if signedIn.session.access.mayRecord {
                            card.element("form", ["method": "post", "action": "/devices/revoke"]) { form in
                                form.csrf(signedIn)
                                form.empty("input", ["type": "hidden", "name": "device", "value": device.id])
                                form.element("button", ["type": "submit", "class": "secondary"], text: words["devices", "revoke", values: ["name": device.name]])
                            }
                        }
                    }
                }
            }
            main.element("h2", text: words["devices", "browsers"])
            main.element("ul", ["class": "cards"]) { list in
                for session in sessions {
                    list.element("li", ["class": "card session", "data-session": session.shortID]) { card in
                        let this = session.id == signedIn.session.id ? " (" + words["devices", "thisBrowser"] + ")" : ""
                        card.element("h3", text: session.name + this)
                        card.element("p", text: (session.access == .household ? words["devices", "householdBrowser"] : words["devices", "caregiverBrowser"])
                            + " · " + lastSeen(session.lastSeen))
                        if signedIn.session.access.mayRecord, session.id != signedIn.session.id {
                            card.element("form", ["method": "post", "action": "/devices/sign-out"]) { form in
                                form.csrf(signedIn)
                                form.empty("input", ["type": "hidden", "name": "session", "value": session.shortID])
                                form.element("button", ["type": "submit", "class": "secondary"], text: words["devices", "signOutBrowser", values: ["name": session.name]])
                            }
                        }
                    }
                }
            }
            if signedIn.session.access.mayRecord { codeForm(signedIn, words: words, into: &main) }
        }
    }

    /// The form that makes a one-time code: for a watch, a widget, a household device (that
    /// may record, or not), or another browser.
    private func codeForm(_ signedIn: SignedIn, words: WebWords, into main: inout Markup) {
        main.element("h2", ["id": "new-code"], text: words["devices", "newCode"])
        main.element("form", ["method": "post", "action": "/devices/code", "aria-labelledby": "new-code"]) { form in
            form.csrf(signedIn)
            form.element("label", ["for": "kind"], text: words["devices", "codeFor"])
            form.element("select", ["id": "kind", "name": "kind"]) { select in
                for kind in CodeKind.allCases {
                    select.element("option", ["value": kind.rawValue], text: words["devices", "kinds", kind.rawValue])
                }
            }
            form.element("p") { $0.element("button", ["type": "submit"], text: words["devices", "makeCode"]) }
        }
    }

    /// Makes a pairing or sign-in code and shows it, large, with its expiry.
    func makeCode(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, form) = try await forms.recording(request, context)
        guard let kind = CodeKind(rawValue: try form.decode(CodeForm.self).kind) else { throw WebFailure.badForm("\"kind\" names no kind of code") }
        let code = PairingCode.random()
        let expiresAt = clock.now.addingTimeInterval(CodeKind.lifetime)
        let maker = signedIn.session.id
        let handle = switch kind {
        case .watch, .widget, .household, .householdRecording:
            try await access.openPairingCode(
                code.characters, role: kind.role!, mayRecord: kind == .householdRecording, shownTo: maker, expiresAt: expiresAt)
        case .browser, .householdBrowser:
            try await access.openSignInCode(
                code.characters, access: kind == .browser ? .caregiver : .household, shownTo: maker, expiresAt: expiresAt)
        }
        logger.notice("a code was made from the web", metadata: ["kind": "\(kind.rawValue)", "session": "\(signedIn.session.shortID)"])
        return .seeOther("/devices?code=\(handle)")
    }

    /// The open code `?code=` names, if this session made it and may still make codes.
    private func shownCode(_ request: Request, _ signedIn: SignedIn) async throws -> ShownCode? {
        guard signedIn.session.access.mayRecord, let text = request.uri.queryParameters["code"] else { return nil }
        let handle = String(text)
        guard handle.count == 32, handle.allSatisfy(\.isHexDigit) else { throw WebFailure.badForm("\"code\" names no code") }
        guard let open = try await store.devices.openCode(handle, shownTo: signedIn.session.id, at: clock.now),
              let code = PairingCode(open.code), let kind = CodeKind(open) else { return nil }
        return ShownCode(code: code, kind: kind, expiresAt: open.expiresAt)
    }

    /// Revokes a paired device; a running primary closes its connection at once.
    func revokeDevice(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, form) = try await forms.recording(request, context)
        let id = try form.decode(DeviceForm.self).device
        guard try await store.devices.device(id) != nil else { throw WebFailure.refused(context.words["devices", "unknown"]) }
        _ = try await access.revokeDevice(id, device: "browser:\(signedIn.session.shortID)")
        logger.notice("a device was revoked from the web", metadata: ["device": "\(id.prefix(16))", "session": "\(signedIn.session.shortID)"])
        return .seeOther("/devices")
    }

    /// Signs another browser out.
    func signOutBrowser(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, form) = try await forms.recording(request, context)
        let ended = try await access.revokeWebSession(try form.decode(SessionForm.self).session)
        if let ended { live.end(session: ended.id) }
        logger.notice("a browser was signed out from the web", metadata: [
            "signedOut": "\(ended?.shortID ?? "already")", "session": "\(signedIn.session.shortID)",
        ])
        return .seeOther("/devices")
    }
}
