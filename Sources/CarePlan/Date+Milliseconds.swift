import Foundation

extension Date {
    /// The instant in whole milliseconds since 1970, as messages and contexts carry it.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
