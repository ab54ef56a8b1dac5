import Clocks
import Foundation
import Hummingbird
import Synchronization

/// The `Date` header's text (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) on
/// `clock`, made when a response needs it and kept for the rest of that second.
final class HTTPDate: Sendable {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private let clock: any WallClock
    private let kept = Mutex<(second: Int, text: String)>((.min, ""))

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// The header's text for now.
    var now: String {
        let second = Int(clock.now.timeIntervalSince1970.rounded(.down))
        return kept.withLock { kept in
            if kept.second != second { kept = (second, Self.text(second)) }
            return kept.text
        }
    }

    /// `second` (since 1970) as an IMF-fixdate.
    static func text(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

/// `inner`, each answer given the `Date` header on `dates`' clock: the last stage of what the
/// app serves, so that tests through the router get the header production sends. A failure
/// is answered 500 (the front door turns every refusal into a page).
struct DatedResponder<Inner: HTTPResponder>: HTTPResponder {
    let inner: Inner
    let dates: HTTPDate

    func respond(to request: Request, context: Inner.Context) async throws -> Response {
        var response: Response
        do {
            response = try await inner.respond(to: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        response.headers[.date] = dates.now
        return response
    }
}
