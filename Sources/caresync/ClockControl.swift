import CarePlan
import Foundation
import LineOutput
import ServiceLifecycle
import Clocks

/// `caresync primary --clock-control`, a test facility: a test moves the primary's clock
/// forward by writing `advance SECONDS` to its standard input, and hears the new time back
/// (`{"event":"clock","now":…}` with `--json`). Reminders, expiries and day rollovers due by
/// then happen at once, so a test that needs "08:00" gets there without waiting for it.
struct ClockControl: Service {
    let clock: ShiftedClock
    let json: Bool

    func run() async throws {
        for await line in StandardInput.lines().cancelOnGracefulShutdown() {
            let words = line.split(separator: " ")
            guard words.count == 2, words[0] == "advance", let seconds = TimeInterval(words[1]), seconds >= 0, seconds.isFinite else {
                let refusal = "not a clock command: \"\(line)\" (advance SECONDS)"
                json ? emitJSON(["event": "clock", "error": .string(refusal)]) : emit(refusal)
                continue
            }
            clock.advance(by: seconds)
            let now = ISO8601.string(from: clock.now)
            json ? emitJSON(["event": "clock", "now": .string(now)]) : emit("Clock at \(now)")
        }
    }
}
