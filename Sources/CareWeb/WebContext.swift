import CarePlanStore
import Hummingbird

/// What a request carries through the app: who signed in, the words to answer in.
struct WebContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The browser's session, once the cookie named a valid one.
    var signedIn: SignedIn?
    /// The language of the page, from the person's choice or the browser's.
    var words = WebLanguages.english

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
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
