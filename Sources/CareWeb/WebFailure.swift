import HTTPTypes

/// A request the app refuses, with the status and the words the person sees. Anything else
/// that goes wrong is logged and shown as a plain "the primary failed" page: never a trace.
enum WebFailure: Error, Equatable {
    /// No valid session: a page goes to the sign-in form, anything else is refused.
    case signInNeeded
    /// A household session tried to change something.
    case readOnly
    /// A form without this session's CSRF token, or from another site.
    case forgedRequest
    /// A form that does not make sense: a missing or malformed field.
    case badForm(String)
    /// The store refused what was asked (an unknown activity, an invalid result).
    case refused(String)
    case notFound
    case tooLarge
    /// Too many pages follow the store at once.
    case busy
    /// A report is printing and others wait for it already.
    case printerBusy
    /// The request named a host this app is not served under.
    case wrongHost
    /// A page's `?day=` names no day.
    case noSuchDay(String)

    var status: HTTPResponse.Status {
        switch self {
        case .signInNeeded: .unauthorized
        case .readOnly, .forgedRequest: .forbidden
        case .badForm, .noSuchDay: .badRequest
        case .refused: .unprocessableContent
        case .notFound: .notFound
        case .tooLarge: .contentTooLarge
        case .busy, .printerBusy: .serviceUnavailable
        case .wrongHost: .misdirectedRequest
        }
    }

    /// A short code for scripts (the JSON form of the refusal).
    var code: String {
        switch self {
        case .signInNeeded: "sign-in-needed"
        case .readOnly: "read-only"
        case .forgedRequest: "forged-request"
        case .badForm: "bad-form"
        case .refused: "refused"
        case .notFound: "not-found"
        case .tooLarge: "too-large"
        case .busy: "busy"
        case .printerBusy: "printer-busy"
        case .wrongHost: "wrong-host"
        case .noSuchDay: "no-such-day"
        }
    }

    /// What the person reads, in `words`.
    func message(_ words: WebWords) -> String {
        switch self {
        case .signInNeeded: words["errors", "signInNeeded"]
        case .readOnly: words["errors", "readOnly"]
        case .forgedRequest: words["errors", "forgedRequest"]
        case .badForm(let detail): words["errors", "badForm", values: ["detail": detail]]
        case .refused(let detail): words["errors", "refused", values: ["detail": detail]]
        case .notFound: words["errors", "notFound"]
        case .tooLarge: words["errors", "tooLarge"]
        case .busy: words["errors", "busy"]
        case .printerBusy: words["errors", "printerBusy"]
        case .wrongHost: words["errors", "wrongHost"]
        case .noSuchDay(let text): words["errors", "noSuchDay", values: ["text": text]]
        }
    }

    /// The heading of its page: what went wrong with a page asked for, else that a request
    /// was not done.
    func title(_ words: WebWords) -> String {
        switch self {
        case .notFound: words["errors", "notFoundTitle"]
        case .noSuchDay: words["errors", "noSuchDayTitle"]
        default: words["errors", "title"]
        }
    }
}
