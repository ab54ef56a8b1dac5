import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells when another process may have committed to a store: Linux's inotify on the store's
/// directory, for writes to its database file and its write-ahead log, so that nothing polls
/// while nothing happens. This process's own commits are noticed too (harmless: the change
/// feed finds nothing new); a checkpoint is noticed as a write.
///
/// The events are read by a Dispatch read source, which waits in the kernel (epoll) between
/// them: an idle store costs no wake-up. Sendable because the source is only set up in `init`
/// and cancelled in `deinit` (Dispatch sources are thread-safe).
final class StoreFileWatcher: @unchecked Sendable {
    private let source: any DispatchSourceRead

    /// Watches the store at `path`, calling `changed` (on a Dispatch queue) after writes to
    /// it; `nil` where inotify is not available (the feed then polls).
    init?(path: String, changed: @escaping @Sendable () -> Void) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let names: Set<String> = [url.lastPathComponent, url.lastPathComponent + "-wal"]
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "caresync.store-watcher"))
        source.setEventHandler {
            if Self.drain(fd, naming: names) { changed() }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    /// Stops watching (also when the watcher goes).
    func stop() { source.cancel() }

    deinit { source.cancel() }

    /// Reads every event waiting on `fd`; whether one concerned a file of `names`.
    private static func drain(_ fd: Int32, naming names: Set<String>) -> Bool {
        var concerned = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return concerned }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (nameLength, name) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + header
                    let raw = bytes[start..<start + Int(event.len)]
                    return (Int(event.len), String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self))
                }
                if names.contains(name) { concerned = true }
                offset += header + nameLength
            }
        }
    }
}
