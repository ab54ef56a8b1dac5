import Hummingbird
import Synchronization

/// The open live streams (Server-Sent Events), by session: each session may hold a few, all
/// sessions together a bounded number, read-only sessions together at most half of it; a
/// session's streams end the moment it signs out, and a graceful shutdown ends them all (the
/// server waits for open responses, and these would never end by themselves).
final class LiveStreams: Sendable {
    typealias Continuation = AsyncStream<String>.Continuation

    private struct Entry {
        var session: String
        var readOnly: Bool
        var continuation: Continuation
    }

    private struct State {
        var next = 0
        var open: [Int: Entry] = [:]
        var ended = false
    }

    /// Sent to a stream that a newer page of its session replaced: the page stops following
    /// and follows again when it is next shown.
    static let replaced = "event: replaced\ndata: \n\n"
    /// Sent to a stream whose session ended: the page goes to the sign-in form.
    static let signedOut = "event: signed-out\ndata: \n\n"

    private let state = Mutex(State())

    /// A new stream for `session`, registered until it finishes (then `onEnd` runs); one
    /// opened after ``endAll()`` is finished at once. A session holding `perSession` streams
    /// already has its oldest replaced: a person clicking through pages leaves the last ones.
    /// When every session's `limit` is reached (or, for a `readOnly` session, half of it by
    /// read-only sessions), the session holding most of them gives up its oldest if it holds
    /// more than this one would: nobody fills the streams for everyone, and every session
    /// keeps one while there are fewer sessions than streams.
    ///
    /// - Throws: ``WebFailure/busy`` when the streams are full and no session holds more
    ///   than this one would.
    func open(
        session: String, readOnly: Bool, limit: Int, perSession: Int, onEnd: @escaping @Sendable () -> Void
    ) throws(WebFailure) -> (stream: AsyncStream<String>, continuation: Continuation) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let opened: Result<(id: Int?, replaced: [Continuation]), WebFailure> = state.withLock { state in
            guard !state.ended else { return .success((nil, [])) }
            var replaced = Array(state.open.filter { $0.value.session == session }.keys.sorted().dropLast(max(0, perSession - 1)))
            var pools: [(cap: Int, member: (Entry) -> Bool)] = [(limit, { _ in true })]
            if readOnly { pools.insert((max(1, limit / 2), { $0.readOnly }), at: 0) }
            for pool in pools {
                let members = state.open.filter { !replaced.contains($0.key) && pool.member($0.value) }
                guard members.count >= pool.cap else { continue }
                let held = Dictionary(grouping: members.keys, by: { members[$0]!.session })
                let own = held[session] ?? []
                let richest = held.values.max { $0.count < $1.count } ?? []
                // The oldest of a session holding more than this one would, if there is one.
                guard richest.count > own.count + 1 else { return .failure(.busy) }
                replaced.append(richest.min()!)
            }
            let ended = replaced.compactMap { state.open.removeValue(forKey: $0)?.continuation }
            state.next += 1
            state.open[state.next] = Entry(session: session, readOnly: readOnly, continuation: continuation)
            return .success((state.next, ended))
        }
        let (id, replaced) = try opened.get()
        for old in replaced {
            old.yield(Self.replaced)
            old.finish()
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

    /// Ends the streams of `session`, telling each page that it signed out.
    func end(session: String) {
        let ended = state.withLock { state in
            let ids = state.open.filter { $0.value.session == session }.keys
            return ids.compactMap { state.open.removeValue(forKey: $0)?.continuation }
        }
        for continuation in ended {
            continuation.yield(Self.signedOut)
            continuation.finish()
        }
    }

    /// Finishes every stream and any opened later.
    func endAll() {
        let open = state.withLock { state in
            state.ended = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for entry in open { entry.continuation.finish() }
    }
}
