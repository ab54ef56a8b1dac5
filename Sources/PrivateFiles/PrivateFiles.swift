import Foundation
import Glibc

/// Files and directories only their owner may read: identities, stores and companion state
/// hold keys and health data. Nothing here is ever visible to others, not even for a moment:
/// directories are made 0700, files are created 0600 (never created wider and narrowed later),
/// and a file written in one piece appears whole or not at all.
public enum PrivateFiles {
    /// Makes `path` and any missing parents as directories only the owner may enter (0700).
    ///
    /// - Parameters:
    ///   - path: the directory to make.
    ///   - own: `path` is this program's own directory (a state directory, say): an existing
    ///     one is narrowed to 0700 as well. Parents that exist are left as they are.
    public static func makeDirectory(_ path: String, own: Bool) throws(PrivateFileError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST { throw .failed("create the directory", path: prefix, errno: errno) }
        }
        if own, chmod(path, 0o700) != 0 { throw .failed("restrict", path: path, errno: errno) }
    }

    /// Prepares an SQLite database file before it is opened: creates it 0600 if there is none
    /// (SQLite gives its WAL and shared-memory files the database file's mode) and narrows an
    /// existing one of the owner's, and its `-wal`, `-shm` and `-journal` files, to 0600.
    public static func prepareDatabase(_ path: String) throws(PrivateFileError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .failed("create", path: path, errno: errno) }
        defer { close(fd) }
        // Another user's file (EPERM) keeps the mode its owner chose.
        if fchmod(fd, 0o600) != 0, errno != EPERM { throw .failed("restrict", path: path, errno: errno) }
        for suffix in ["-wal", "-shm", "-journal"] where chmod(path + suffix, 0o600) != 0 && errno != ENOENT && errno != EPERM {
            throw .failed("restrict", path: path + suffix, errno: errno)
        }
    }

    /// Writes `contents` as a new file `path` (0600) in one piece: the file appears complete,
    /// synced to disk, or not at all, whenever the process dies. Returns false, writing
    /// nothing, if `path` already exists (another process made it first).
    ///
    /// The data goes to an unnamed file in the same directory (`O_TMPFILE`), so a crash
    /// leaves no copy behind; it is linked under its name only once written and synced.
    /// Where the filesystem has no unnamed files, a hidden `.NAME.tmp-PID` file (0600) takes
    /// its place, linked under the name and unlinked; ``removeLeftovers(of:)`` clears those
    /// a crash left.
    public static func createOnce(_ path: String, contents: [UInt8]) throws(PrivateFileError) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        var fd = open(directory.isEmpty ? "." : directory, unnamedFile | O_WRONLY | O_CLOEXEC, 0o600)
        var temporary: String?
        if fd < 0 {
            guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
                throw .failed("create a file in", path: directory, errno: errno)
            }
            temporary = leftoverPrefix(of: path) + String(getpid())
            fd = open(temporary!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw .failed("create", path: temporary!, errno: errno) }
        }
        defer {
            close(fd)
            if let temporary { unlink(temporary) }
        }
        try write(contents, to: fd, path: path)
        let source = temporary ?? "/proc/self/fd/\(fd)"
        guard linkat(AT_FDCWD, source, AT_FDCWD, path, temporary == nil ? AT_SYMLINK_FOLLOW : 0) == 0 else {
            if errno == EEXIST { return false }
            throw .failed("create", path: path, errno: errno)
        }
        try syncDirectory(of: path)
        return true
    }

    /// Writes `contents` as the file `path` (0600), replacing any file of that name in one
    /// step: readers see the old file or the new one whole, synced to disk, never a part.
    /// The data goes to a hidden `.NAME.tmp-PID` file first, renamed over `path` once synced;
    /// ``removeLeftovers(of:)`` clears one a crash left.
    public static func replace(_ path: String, contents: [UInt8]) throws(PrivateFileError) {
        let temporary = leftoverPrefix(of: path) + String(getpid())
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .failed("create", path: temporary, errno: errno) }
        do {
            defer { close(fd) }
            try write(contents, to: fd, path: path)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .failed("replace", path: path, errno: code)
        }
        try syncDirectory(of: path)
    }

    /// Syncs the file at `path` to disk, its content and size, whoever wrote it (an SQLite
    /// log written unsynced, say). Returns false, syncing nothing, if there is no such file.
    @discardableResult
    public static func sync(_ path: String) throws(PrivateFileError) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return false }
            throw .failed("open", path: path, errno: errno)
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .failed("sync", path: path, errno: errno) }
        return true
    }

    /// Removes the hidden temporary files a crash may have left from ``createOnce(_:contents:)``.
    public static func removeLeftovers(of path: String) throws(PrivateFileError) {
        let prefix = (leftoverPrefix(of: path) as NSString).lastPathComponent
        let directory = (path as NSString).deletingLastPathComponent
        guard let stream = opendir(directory.isEmpty ? "." : directory) else {
            throw .failed("list", path: directory, errno: errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        for name in names where name.hasPrefix(prefix) {
            unlink(directory + "/" + name)
        }
    }

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift does not import.
    private static let unnamedFile: Int32 = 0o20_000_000 | O_DIRECTORY

    private static func leftoverPrefix(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        let name = ".\((path as NSString).lastPathComponent).tmp-"
        return directory.isEmpty ? name : directory + "/" + name
    }

    private static func write(_ contents: [UInt8], to fd: Int32, path: String) throws(PrivateFileError) {
        var offset = 0
        while offset < contents.count {
            let written = contents[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .failed("write", path: path, errno: errno)
            }
            offset += written
        }
        guard fsync(fd) == 0 else { throw .failed("sync", path: path, errno: errno) }
    }

    private static func syncDirectory(of path: String) throws(PrivateFileError) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .failed("open", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .failed("sync", path: directory, errno: errno) }
    }
}

/// A file operation that failed, with the path and the system's reason.
public enum PrivateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    case failed(String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .failed(let what, let path, _): "cannot \(what) \(path): \(reason)"
        }
    }

    /// The system's reason, such as "Permission denied".
    public var reason: String {
        switch self {
        case .failed(_, _, let code): String(cString: strerror(code))
        }
    }
}
