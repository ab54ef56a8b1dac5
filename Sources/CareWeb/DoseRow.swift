import CareInsights
import CarePlan
import Foundation
import Markup

/// One dose: when it was due, what was recorded, and the forms that record it (taken; not
/// taken, with a reason; undo).
struct DoseRow {
    var dose: Event
    var today: CalendarDay
    var zone: TimeZone
    var signedIn: SignedIn
    var words: WebWords
    var path: String

    func write(to list: inout Markup) {
        list.element("li", ["class": "dose state-\(dose.state.rawValue)", "data-event": dose.key.description]) { item in
            let due = InsightWording(language: words.language).label(dose.key.day) + (dose.time.map { " · \($0)" } ?? "")
            item.element("span", ["class": "due"], text: due)
            item.element("span", ["class": "status"], text: status)
            guard signedIn.session.access.mayRecord, dose.key.day <= today else { return }
            item.element("div", ["class": "actions"]) { actions in
                if dose.state != .completed { form(state: .completed, label: words["medications", "taken"], into: &actions) }
                if dose.state != .notCompleted { notTakenForm(into: &actions) }
                if dose.state != .initial { form(state: .initial, label: words["medications", "undo"], secondary: true, into: &actions) }
            }
        }
    }

    private var status: String {
        guard let outcome = dose.outcome, outcome.state != .initial else {
            return dose.key.day < today ? words["medications", "nothingRecorded"] : words["medications", "due"]
        }
        // The record knows when an outcome was entered, not when the dose was taken: say so,
        // and name the day when it was entered on another than the dose's.
        let recorded = CalendarDay.containing(outcome.recordedAt, in: zone) == dose.key.day
            ? words["medications", "recordedAt", values: ["time": TimeOfDay.containing(outcome.recordedAt, in: zone).description]]
            : words["medications", "recordedLater", values: ["time": words.moment(outcome.recordedAt, in: zone)]]
        if outcome.state == .completed { return words["medications", "takenRecorded", values: ["recorded": recorded]] }
        return outcome.reason.map { words["medications", "notTakenBecause", values: ["recorded": recorded, "reason": $0]] }
            ?? words["medications", "notTakenRecorded", values: ["recorded": recorded]]
    }

    private func form(state: EventState, label: String, secondary: Bool = false, into markup: inout Markup) {
        markup.element("form", ["method": "post", "action": "/outcomes"]) { form in
            form.csrf(signedIn)
            OutcomeForm.hiddenFields(dose.key, returnTo: path, into: &form)
            form.empty("input", ["type": "hidden", "name": "state", "value": state.rawValue])
            form.element("button", secondary ? ["type": "submit", "class": "secondary"] : ["type": "submit"], text: label)
        }
    }

    private func notTakenForm(into markup: inout Markup) {
        let id = "reason-" + OutcomeForm.fieldID(dose.key) + "-\(dose.key.day)"
        markup.element("form", ["method": "post", "action": "/outcomes", "class": "not-taken"]) { form in
            form.csrf(signedIn)
            OutcomeForm.hiddenFields(dose.key, returnTo: path, into: &form)
            form.empty("input", ["type": "hidden", "name": "state", "value": EventState.notCompleted.rawValue])
            form.element("label", ["for": id], text: words["medications", "reason"])
            form.empty("input", ["type": "text", "id": id, "name": "reason", "maxlength": "\(OutcomeForm.maximumReason)", "autocomplete": "off"])
            form.element("button", ["type": "submit", "class": "secondary"], text: words["medications", "notTaken"])
        }
    }
}
