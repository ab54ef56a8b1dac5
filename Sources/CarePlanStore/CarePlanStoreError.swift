import CarePlan
import GRDB
import PrivateFiles

/// Everything the store refuses, each with a message a person can act on.
public enum CarePlanStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownActivity(String)
    case activityExists(String)
    case kindChanged(String, from: ActivityKind, to: ActivityKind)
    case invalidActivity(String, ActivityError)
    /// No version of the activity governs the day, or its schedule has nothing that day.
    case outsideSchedule(EventKey)
    case noSuchOccurrence(EventKey, occurrences: Int)
    case invalidResult(EventKey, ResultError)
    case notResettable(String)
    /// The event's day is after `today` in the plan's time zone `timeZone`.
    case futureDay(EventKey, today: CalendarDay, timeZone: String)
    case planNotConfigured
    case diskFull(path: String)
    case busy(path: String)
    case cannotOpen(path: String, reason: String)
    case notADatabase(path: String)
    case schemaTooNew(path: String, unknownMigrations: [String])
    case unknownDevice(String)
    case ambiguousDevice(String, matches: [String])
    case unknownWebSession(String)
    /// A device that may not be sent the report (not a household device, or revoked).
    case cannotReceiveReports(String, reason: String)
    case database(String)

    public var description: String {
        switch self {
        case .unknownActivity(let id): "unknown activity \"\(id)\""
        case .activityExists(let id): "an activity \"\(id)\" already exists"
        case .kindChanged(let id, let from, let to):
            "activity \"\(id)\" cannot change from \(from.rawValue) to \(to.rawValue): give it a new id"
        case .invalidActivity(let id, let error): "activity \"\(id)\": \(error)"
        case .outsideSchedule(let key):
            "\"\(key.activityID)\" has no events on \(key.day)"
        case .noSuchOccurrence(let key, let count):
            "\"\(key.activityID)\" has \(count) occurrence\(count == 1 ? "" : "s") on \(key.day) (0...\(count - 1)), not \(key.occurrence)"
        case .invalidResult(let key, let error): "\(key): \(error)"
        case .notResettable(let id): "the result of \"\(id)\" cannot be reset"
        case .futureDay(let key, let today, let zone): "\(key.day) is after today (\(today) in \(zone)): nothing recorded"
        case .planNotConfigured:
            "the store has no plan yet"
        case .diskFull(let path): "the disk is full: nothing was written to \(path)"
        case .busy(let path): "\(path) stayed locked by another process: nothing was written"
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .notADatabase(let path): "\(path) is not a CareSync store"
        case .schemaTooNew(let path, let unknown):
            "\(path) was written by a newer CareSync (migrations \(unknown.joined(separator: ", "))): upgrade to open it"
        case .unknownDevice(let id): "no paired device \"\(id)\""
        case .unknownWebSession(let id): "no browser session \"\(id)\""
        case .ambiguousDevice(let text, let matches):
            "\"\(text)\" could be any of \(matches.joined(separator: ", ")): give more of the fingerprint"
        case .cannotReceiveReports(let name, let reason):
            "\(name) cannot receive the report: \(reason) (only a household device that was not revoked can)"
        case .database(let message): "database error: \(message)"
        }
    }

    /// Maps any error from GRDB or SQLite to a store error.
    init(_ error: any Error, path: String) {
        if let error = error as? CarePlanStoreError {
            self = error
            return
        }
        if let error = error as? PrivateFileError {
            self = .cannotOpen(path: path, reason: error.reason)
            return
        }
        guard let error = error as? DatabaseError else {
            self = .database(String(describing: error))
            return
        }
        switch error.resultCode {
        case .SQLITE_FULL: self = .diskFull(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: self = .busy(path: path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
            self = .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: self = .notADatabase(path: path)
        default: self = .database(error.message ?? "\(error.resultCode)")
        }
    }
}
