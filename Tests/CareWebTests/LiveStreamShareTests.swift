@testable import CareWeb
import Synchronization
import Testing

/// Issue 53, item 6: the live streams are shared per session and per role: read-only
/// sessions together hold at most half, and when the streams are full the session holding
/// the most gives one up, so that nobody fills them for everyone.
struct LiveStreamShareTests {
    final class Ends: Sendable {
        let ended = Mutex<Set<String>>([])
    }

    @Test func elevenReadOnlySessionsLeaveRoomForACaregiverAndEachOther() throws {
        let streams = LiveStreams()
        let ends = Ends()
        // The streams are kept: one that is dropped ends (as a page's does when it goes).
        var kept: [(stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation)] = []
        var names: Set<String> = []
        func open(_ session: String, readOnly: Bool, _ index: Int, in streams: LiveStreams = streams, limit: Int = 64) throws {
            let name = "\(session)#\(index)"
            kept.append(try streams.open(session: session, readOnly: readOnly, limit: limit, perSession: 6) {
                _ = ends.ended.withLock { $0.insert(name) }
            })
            names.insert(name)
        }
        var refused = 0
        for household in 0..<11 {
            for index in 0..<6 {
                do { try open("household-\(household)", readOnly: true, index) } catch { refused += 1 }
            }
        }
        #expect(streams.count == 32 && refused > 0, "read-only sessions hold half of the 64")
        // Every read-only session still follows in at least one page.
        let opened = kept.count
        for household in 0..<11 {
            let own = (0..<6).map { "household-\(household)#\($0)" }.filter(names.contains)
            #expect(ends.ended.withLock { ended in own.contains { !ended.contains($0) } }, "household-\(household)")
        }
        #expect(opened == 66 - refused)
        for index in 0..<6 { try open("caregiver", readOnly: false, index) }
        #expect(streams.count == 38 && !ends.ended.withLock { $0.contains { $0.hasPrefix("caregiver") } })

        // With every stream taken, a new session is given one from the session holding most.
        let full = LiveStreams()
        for index in 0..<4 { try open("a", readOnly: false, index, in: full, limit: 4) }
        try open("b", readOnly: false, 0, in: full, limit: 4)
        #expect(full.count == 4 && ends.ended.withLock { $0.contains("a#0") && !$0.contains("a#1") })
        try open("c", readOnly: false, 0, in: full, limit: 4)
        try open("d", readOnly: false, 0, in: full, limit: 4)
        #expect(full.count == 4 && ends.ended.withLock { $0.contains("a#1") && $0.contains("a#2") && !$0.contains("a#3") })
        #expect(throws: WebFailure.busy, "each of four sessions holds one") { try open("e", readOnly: false, 0, in: full, limit: 4) }
        // Half of one stream is still one: a read-only session may follow when the limit is 1.
        try open("household", readOnly: true, 0, in: LiveStreams(), limit: 1)
        for opened in kept { opened.continuation.finish() }
    }
}
