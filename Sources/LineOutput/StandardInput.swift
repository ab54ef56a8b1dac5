import Foundation

/// Lines typed or piped on standard input, read on their own thread.
public enum StandardInput {
    public static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }.start()
        return stream
    }
}
