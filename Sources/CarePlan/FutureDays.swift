/// Whether an outcome may be recorded for a day after today in the plan's time zone.
///
/// Refused on every path by default (a dose is not taken in advance); only back-filling a
/// record from the command line (`caresync complete --allow-future`) allows it, explicitly.
public enum FutureDays: Sendable, Hashable {
    case refused
    case allowed
}
