import Foundation
import GRDB
import NIOCore
import NIOPosix
import Clocks

/// The floor under a completion's round trip: a loopback TCP echo over NIO whose server
/// commits one SQLite row (WAL, `synchronous = FULL`, as the store asks for) before it answers.
struct Floor {
    /// Echo without the commit.
    var roundTrip = Samples()
    /// The commit alone.
    var commit = Samples()
    /// The commit alone at `synchronous = NORMAL`, where GRDB leaves a DatabasePool's writer.
    var normalCommit = Samples()
    /// Echo with the commit: the floor.
    var both = Samples()
    /// Commits of ``batchRows`` rows each: what sustained completions are held against.
    var batches = Samples()

    /// The rows in one of ``batches``: as many as 100 companions, each with a completion in
    /// flight, can give one group commit.
    static let batchRows = 100

    /// Rows a second, committed ``batchRows`` at a time.
    var batchedInsertRate: Double {
        Double(batches.seconds.count * Self.batchRows) / batches.total
    }

    /// Measures each figure `count` times, stopping early at `deadline`.
    static func measure(count: Int, until deadline: ContinuousClock.Instant) async throws -> Floor {
        let (directory, pool) = try await database()
        defer { try? FileManager.default.removeItem(at: directory) }

        var floor = Floor()
        let clock = ContinuousClock()
        for n in 0..<count where clock.now < deadline {
            floor.normalCommit.append(try clock.measure { try insert(n, into: pool) }.inSeconds)
        }
        try await commitFully(pool)
        // The commit alone, the round trip alone, both together and a batch take turns, so
        // that the disk's and the machine's moods fall on all four alike.
        let echo = try await echoServer(committingTo: nil)
        let committing = try await echoServer(committingTo: pool)
        do {
            try await connect(to: echo).executeThenClose { echoReplies, echoRequests in
                try await connect(to: committing).executeThenClose { committedReplies, committedRequests in
                    var (echoes, commits) = (echoReplies.makeAsyncIterator(), committedReplies.makeAsyncIterator())
                    for n in 0..<count where clock.now < deadline {
                        floor.commit.append(try clock.measure { try insert(n, into: pool) }.inSeconds)
                        floor.roundTrip.append(try await roundTrip(n, echoRequests, &echoes))
                        floor.both.append(try await roundTrip(n, committedRequests, &commits))
                        floor.batches.append(try clock.measure { try insertBatch(from: n * Self.batchRows, into: pool) }.inSeconds)
                    }
                }
            }
        } catch {
            try? await echo.close()
            try? await committing.close()
            throw error
        }
        try await echo.close()
        try await committing.close()
        try pool.close()
        return floor
    }

    /// One request at a time to an echo server that commits it first, in turns with another
    /// workload's own requests (a run's completions): each commit then follows the one before
    /// by as long as that workload's do, which decides what a commit costs on some disks
    /// (Docs/Benchmarks.md, `sync`: "The floor, paced alike").
    final class Probe {
        private let requests: NIOAsyncChannelOutboundWriter<ByteBuffer>
        private var replies: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        private var sent = 0

        fileprivate init(_ requests: NIOAsyncChannelOutboundWriter<ByteBuffer>, _ replies: NIOAsyncChannelInboundStream<ByteBuffer>) {
            self.requests = requests
            self.replies = replies.makeAsyncIterator()
        }

        /// One TCP round trip with one commit, in seconds.
        func sample() async throws -> Double {
            sent += 1
            return try await Floor.roundTrip(sent, requests, &replies)
        }
    }

    /// Runs `body` with a probe over a database and echo server of its own, removed after.
    static func probing(_ body: (Probe) async throws -> Void) async throws {
        let (directory, pool) = try await database()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await commitFully(pool)
        let server = try await echoServer(committingTo: pool)
        do {
            try await connect(to: server).executeThenClose { replies, requests in
                try await body(Probe(requests, replies))
            }
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
        try pool.close()
    }

    /// A new database in a temporary directory of its own, with the one table requests go to.
    private static func database() async throws -> (directory: URL, pool: DatabasePool) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-floor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: directory.appendingPathComponent("floor.sqlite").path)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE request (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)") }
        return (directory, pool)
    }

    /// A DatabasePool sets its writer to NORMAL as it opens (after any `prepareDatabase`),
    /// which syncs the WAL only at checkpoints; the floor commits as an outcome must.
    private static func commitFully(_ pool: DatabasePool) async throws {
        let level = try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard level == 2 else { throw BenchmarkFailure("the floor's database would not take synchronous = FULL") }
    }

    static func insert(_ n: Int, into pool: DatabasePool) throws {
        try pool.write { db in try db.execute(sql: "INSERT INTO request (n) VALUES (?)", arguments: [n]) }
    }

    /// ``batchRows`` rows in one commit, through one prepared statement.
    private static func insertBatch(from first: Int, into pool: DatabasePool) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO request (n) VALUES (?)")
            for n in first..<first + batchRows { try statement.execute(arguments: [n]) }
        }
    }

    /// An echo server on 127.0.0.1 for 8-byte requests, committing each first to `pool` if given.
    private static func echoServer(committingTo pool: DatabasePool?) async throws -> Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(RequestDecoder()), Echo(pool: pool))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    private static func connect(to server: Channel) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: server.localAddress!.port!) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestDecoder()))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// One request and its echo, in seconds.
    private static func roundTrip(
        _ n: Int, _ requests: NIOAsyncChannelOutboundWriter<ByteBuffer>, _ replies: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    ) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await requests.write(ByteBuffer(integer: UInt64(n)))
        guard try await replies.next() != nil else { throw BenchmarkFailure("the floor's echo server closed the connection") }
        return start.duration(to: clock.now).inSeconds
    }
}

/// Splits the stream into 8-byte requests.
private struct RequestDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let request = buffer.readSlice(length: 8) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(request))
        return .continue
    }
}

/// Answers each request with itself, after committing it when there is a pool.
private final class Echo: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let pool: DatabasePool?

    init(pool: DatabasePool?) {
        self.pool = pool
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            let request = unwrapInboundIn(data)
            if let pool, let n = request.getInteger(at: request.readerIndex, as: UInt64.self) {
                try Floor.insert(Int(n), into: pool)
            }
            context.writeAndFlush(data, promise: nil)
        } catch {
            context.close(promise: nil)
        }
    }
}
