import CarePlanStore
import Hummingbird
import Synchronization

/// The open live streams (Server-Sent Events), so that a graceful shutdown can end them:
/// the server waits for open responses, and these would never end by themselves.
final class LiveStreams: Sendable {
    private struct State {
        var next = 0
        var open: [Int: AsyncStream<String>.Continuation] = [:]
        var ended = false
    }

    private let state = Mutex(State())

    /// A new stream, registered until it finishes (then `onEnd` runs); one opened after
    /// ``endAll()`` is finished at once.
    ///
    /// - Throws: ``WebFailure/busy`` when `limit` streams are open already.
    func open(
        limit: Int, onEnd: @escaping @Sendable () -> Void
    ) throws(WebFailure) -> (stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation) {
        guard count < limit else { throw .busy }
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let id: Int? = state.withLock { state in
            guard !state.ended else { return nil }
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            if let id { _ = self?.state.withLock { $0.open.removeValue(forKey: id) } }
            onEnd()
        }
        if id == nil { continuation.finish() }
        return (stream, continuation)
    }

    /// How many are open.
    var count: Int { state.withLock { $0.open.count } }

    /// Finishes every stream and any opened later.
    func endAll() {
        let open = state.withLock { state in
            state.ended = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}

extension CareWebServer {
    /// `/live`: the store's newest revision as Server-Sent Events (`event: revision`), at
    /// once and after every commit, by this process or another; a comment every
    /// heartbeat keeps the stream open, and ends it once the session has ended.
    func liveStream(_ context: WebContext) throws -> Response {
        let sessionID = try context.session().session.id
        let tasks = StreamTasks()
        let (stream, continuation) = try live.open(limit: configuration.maximumLiveStreams) { tasks.end() }
        let (store, changes, heartbeat, logger) = (store, changes, configuration.liveHeartbeat, logger)
        let following = Task {
            do {
                let revision = try await store.revision()
                continuation.yield("retry: 2000\n\nevent: revision\ndata: \(revision)\n\n")
                for await batch in changes.batches(after: revision) {
                    guard let newest = batch.last?.revision else { continue }
                    continuation.yield("event: revision\ndata: \(newest)\n\n")
                }
            } catch {
                logger.warning("a live stream could not read the store", metadata: ["error": "\(error)"])
            }
            continuation.finish()
        }
        let keepingAlive = Task {
            while (try? await Task.sleep(for: heartbeat)) != nil {
                guard (try? await store.webSession(sessionID)) != nil else { break }
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
