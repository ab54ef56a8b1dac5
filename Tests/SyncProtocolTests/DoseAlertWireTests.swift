import CarePlan
import Foundation
import SyncProtocol
import Testing

/// Dose alerts on the wire (protocol section 22): a well-formed one comes back unchanged,
/// anything no alert can be is refused with MALFORMED_FRAME.
struct DoseAlertWireTests {
    let cleared = Caresync_V1_DoseAlert.with {
        $0.sequence = 8
        $0.kind = .cleared
        $0.activityID = "dose"
        $0.day = "2026-11-23"
        $0.title = "Zombie serum"
        $0.time = "08:00"
        $0.dueAtMs = 1_795_417_200_000
        $0.raisedAtMs = 1_795_422_000_000
        $0.critical = true
        $0.outcome = .completed
    }

    func changed(_ change: (inout Caresync_V1_DoseAlert) -> Void) -> Caresync_V1_DoseAlert {
        var alert = cleared
        change(&alert)
        return alert
    }

    @Test func aWellFormedAlertComesBackUnchanged() throws {
        let alert = try DoseAlert(wire: cleared)
        #expect(alert.kind == .cleared)
        #expect(alert.outcome == .completed)
        #expect(alert.key == EventKey(activityID: "dose", day: CalendarDay("2026-11-23")!, occurrence: 0))
        #expect(alert.wire == cleared)
        let missed = changed { $0.kind = .missed; $0.outcome = .unspecified }
        #expect(try DoseAlert(wire: missed).outcome == nil)
        #expect(try DoseAlert(wire: missed).wire == missed)
    }

    @Test func alertsNoAlertCanBeAreRefused() {
        let bad: [(String, Caresync_V1_DoseAlert)] = [
            ("no kind", changed { $0.kind = .unspecified }),
            ("an unknown kind", changed { $0.kind = .UNRECOGNIZED(9) }),
            ("sequence 0", changed { $0.sequence = 0 }),
            ("a sequence beyond Int", changed { $0.sequence = .max }),
            ("a day that is not YYYY-MM-DD", changed { $0.day = "23.11.2026" }),
            ("a time that is not HH:MM", changed { $0.time = "8:00" }),
            ("a missed dose with an outcome", changed { $0.kind = .missed }),
            ("an all clear back to initial", changed { $0.outcome = .initial }),
            ("an instant beyond the year 9999", changed { $0.raisedAtMs = .max }),
        ]
        for (why, wire) in bad {
            do {
                _ = try DoseAlert(wire: wire)
                Issue.record("accepted \(why)")
            } catch {
                #expect(error.code == .malformedFrame, "\(why): \(error)")
            }
        }
    }
}
