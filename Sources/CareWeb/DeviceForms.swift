import CarePlan
import CarePlanStore
import Foundation
import Markup
import NodeIdentity

/// The field of the form that makes a code: what it is for (a ``CodeKind``).
struct CodeForm: Decodable {
    var kind: String
}

/// The field of the form that revokes a device: its id.
struct DeviceForm: Decodable {
    var device: String
}

/// The field of the form that signs another browser out: its session's short id.
struct SessionForm: Decodable {
    var session: String
}

/// What a code made on the devices page is for.
enum CodeKind: String, CaseIterable {
    case watch, widget, household, householdRecording = "household-recording", browser, householdBrowser = "household-browser"

    /// How long a code made here stays valid.
    static let lifetime: TimeInterval = 600

    /// The kind of the open code `open`.
    init?(_ open: OpenCode) {
        switch open.role {
        case DeviceRole.household.rawValue: self = open.mayRecord ? .householdRecording : .household
        case WebAccess.caregiver.rawValue: self = .browser
        case WebAccess.household.rawValue: self = .householdBrowser
        default: self.init(rawValue: open.role)
        }
    }

    /// The device role a pairing code names; `nil` for a browser's sign-in code.
    var role: DeviceRole? {
        switch self {
        case .watch: .watch
        case .widget: .widget
        case .household, .householdRecording: .household
        case .browser, .householdBrowser: nil
        }
    }
}

/// A code just made, shown large with what to do with it.
struct ShownCode {
    var code: PairingCode
    var kind: CodeKind
    var expiresAt: Date

    func write(to markup: inout Markup, words: WebWords, zone: TimeZone) {
        markup.element("section", ["class": "shown-code", "aria-labelledby": "shown-code-title"]) { section in
            section.element("h2", ["id": "shown-code-title"], text: words["devices", "codeTitle", values: ["kind": words["devices", "kinds", kind.rawValue]]])
            section.element("p", ["class": "big-code", "data-code": code.description], text: code.description)
            let until = TimeOfDay.containing(expiresAt, in: zone).description
            section.element("p", text: words["devices", kind.role == nil ? "codeUseBrowser" : "codeUseDevice", values: ["time": until]])
        }
    }
}
