import Foundation
import Glibc
import LineOutput
import Testing
import Waiting

struct LineOutputTests {
    /// Eight threads write lines of up to 200 KiB to one pipe at once (a pipe keeps only
    /// writes of up to 4 KiB whole): the reader gets every line whole, none spliced.
    @Test func linesFromManyThreadsArriveWhole() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (reading, writing) = (ends[0], ends[1])
        let output = LineOutput(fileDescriptor: writing)
        let threads = 8, linesEach = 40
        // Line k of thread t: its own letter repeated, so that a spliced line is seen.
        @Sendable func line(_ thread: Int, _ k: Int) -> String {
            "\(thread):\(k):" + String(repeating: Character(UnicodeScalar(UInt8(65 + thread))), count: (k % 5 + 1) * 40_000)
        }
        // A slow reader, on a thread of its own (a blocking read on one of the two threads
        // that run the whole suite's tasks here would stall them all): the pipe fills, and
        // writers wait for room (where they could interleave).
        let reader = Task {
            await blocking {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while case let count = read(reading, &buffer, buffer.count), count > 0 { received += buffer[..<count] }
                close(reading)
                return received
            }
        }
        // Threads of their own, as the programs' writers are; each reports when it is done.
        await withDiscardingTaskGroup { writers in
            for thread in 0..<threads {
                writers.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread {
                            for k in 0..<linesEach { output.write(line: line(thread, k)) }
                            done.resume()
                        }.start()
                    }
                }
            }
        }
        close(writing)
        let lines = await reader.value.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == threads * linesEach)
        var unseen = Set((0..<threads).flatMap { t in (0..<linesEach).map { [t, $0] } })
        for received in lines {
            let text = String(decoding: received, as: UTF8.self)
            let numbers = text.split(separator: ":", maxSplits: 2).prefix(2).compactMap { Int($0) }
            let whole = numbers.count == 2 && unseen.remove(numbers) != nil && text == line(numbers[0], numbers[1])
            #expect(whole, "a spliced line: \(text.prefix(40))…")
        }
        #expect(unseen.isEmpty)
    }
}
