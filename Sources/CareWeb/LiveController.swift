import CareCore
import CarePlanStore
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The live updates every page follows (`/live`), bounded as ``LiveStreams`` bounds them.
struct LiveController: Sendable {
    /// What it reads, the care core's part that knows whether a session is still valid, and the streams.
    let store: CarePlanStore, access: DeviceAccess, changes: StoreChangeFeed, live: LiveStreams
    /// The most streams open at once and for one session, and how often each hears from the app.
    let limit: Int, perSession: Int, heartbeat: Duration
    let logger: Logger

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/live") { _, context in try liveStream(context) }
    }

    /// `/live`: the store's newest revision as Server-Sent Events (`event: revision`), at
    /// once and after every commit, by this process or another, while the session is valid;
    /// a comment every heartbeat keeps the stream open. It ends when the connection closes,
    /// and with `event: signed-out` once the session has ended (signed out here at once;
    /// revoked by another process, by the next commit or heartbeat).
    func liveStream(_ context: WebContext) throws -> Response {
        let session = try context.session().session
        let sessionID = session.id
        let tasks = StreamTasks()
        let (stream, continuation) = try live.open(
            session: sessionID, readOnly: !session.access.mayRecord, limit: limit, perSession: perSession
        ) { tasks.end() }
        context.connectionClosed.whenComplete { _ in continuation.finish() }
        /// Whether the session still lets its page in; if not, the page is told and the stream
        /// ends. A store that cannot answer just now says nothing about the session.
        @Sendable func stillSignedIn() async -> Bool {
            do {
                guard try await access.session(sessionID) == nil else { return true }
            } catch {
                return true
            }
            continuation.yield(LiveStreams.signedOut)
            continuation.finish()
            return false
        }
        let following = Task {
            do {
                let revision = try await store.revision()
                continuation.yield("retry: 2000\n\nevent: revision\ndata: \(revision)\n\n")
                for await batch in changes.batches(after: revision) {
                    guard let newest = batch.last?.revision else { continue }
                    guard await stillSignedIn() else { return }
                    continuation.yield("event: revision\ndata: \(newest)\n\n")
                }
            } catch {
                logger.warning("a live stream could not read the store", metadata: ["error": "\(error)"])
            }
            continuation.finish()
        }
        let keepingAlive = Task {
            while (try? await Task.sleep(for: heartbeat)) != nil {
                guard await stillSignedIn() else { return }
                continuation.yield(": still here\n\n")
            }
            continuation.finish()
        }
        tasks.hold([following, keepingAlive])
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody(asyncSequence: stream.map { ByteBuffer(string: $0) }))
    }
}

/// The tasks that feed one live stream, cancelled when it ends (also if it ended before
/// they were handed over).
private final class StreamTasks: Sendable {
    private let state = Mutex<(tasks: [Task<Void, Never>], ended: Bool)>(([], false))

    func hold(_ tasks: [Task<Void, Never>]) {
        let ended = state.withLock { state in
            state.tasks = tasks
            return state.ended
        }
        if ended { tasks.forEach { $0.cancel() } }
    }

    func end() {
        let tasks = state.withLock { state in
            state.ended = true
            return state.tasks
        }
        tasks.forEach { $0.cancel() }
    }
}
