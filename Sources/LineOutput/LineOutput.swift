import Foundation
import Glibc
import Synchronization

/// Whole lines to a file descriptor from any thread, one at a time: a line is written to the
/// end before the next begins, so lines never interleave, however long (a pipe only keeps
/// writes of up to 4 KiB whole). Every program of CareSync writes its standard output through
/// ``standardOutput``, so that programs reading it, JSON lines say, always get whole lines,
/// and its log through ``standardError``. Text for people goes through ``write(text:)``,
/// which neutralizes terminal controls (``TerminalText``); JSON and other documents for
/// programs through ``write(line:)``, as they are.
public final class LineOutput: Sendable {
    /// Standard output, shared by the whole process: product output.
    public static let standardOutput = LineOutput(fileDescriptor: STDOUT_FILENO)
    /// Standard error, shared by the whole process: log records and a command's refusal.
    public static let standardError = LineOutput(fileDescriptor: STDERR_FILENO)

    private let fileDescriptor: Int32
    private let writing = Mutex(())

    /// Writes to `fileDescriptor`, which the caller keeps open while this is used.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Writes `line` and a newline, unbuffered: a reader sees it at once.
    public func write(line: String) {
        write(Array((line + "\n").utf8))
    }

    /// Writes `text`, a line for a person, and a newline, its terminal controls neutralized
    /// (``TerminalText``).
    public func write(text: String) {
        write(line: TerminalText.neutralized(text))
    }

    /// Writes `bytes` as they are, whole, before any other write through this output. A
    /// reader that has gone away (a closed pipe) ends the write; it is not an error here.
    public func write(_ bytes: [UInt8]) {
        writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(fileDescriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    guard errno == EINTR else { return }
                    continue
                }
                offset += written
            }
        }
    }
}

/// Writes one line of text for a person to standard output, whole, its terminal controls
/// neutralized (``LineOutput/write(text:)``).
public func emit(_ line: String) {
    LineOutput.standardOutput.write(text: line)
}

/// Writes `line` to standard output as it is, whole: output for programs (JSON, a vCard)
/// whose own escaping its readers rely on.
public func emitVerbatim(_ line: String) {
    LineOutput.standardOutput.write(line: line)
}
