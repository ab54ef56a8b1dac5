import CarePlanStore
import Hummingbird
import NIOCore

/// What a request carries through the app: who signed in, the words to answer in, and the
/// connection it came on.
struct WebContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The browser's session, once the cookie named a valid one.
    var signedIn: SignedIn?
    /// What every page of a signed-in person says first while the scheduled backups fail.
    var backupAlert: String?
    /// The language of the page, from the person's choice or the browser's.
    var words = WebLanguages.english
    /// The address the request came from (its port aside): what sign-in attempts are counted by.
    let source: String
    /// Completes when the browser has gone (``ClientGone``): a live stream ends with it, not
    /// at its next write.
    let connectionClosed: EventLoopFuture<Void>

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        self.source = source.channel.remoteAddress?.ipAddress ?? "unknown"
        connectionClosed = ClientGone.future(on: source.channel)
    }

    /// The signed-in session, or the refusal a page without one gets.
    func session() throws -> SignedIn {
        guard let signedIn else { throw WebFailure.signInNeeded }
        return signedIn
    }
}

/// A valid session and the secret its cookie held (which the CSRF token derives from).
struct SignedIn: Sendable {
    var session: WebSession
    var secret: SessionSecret
}
