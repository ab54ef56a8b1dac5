import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Hummingbird
import Markup

/// The form every recording button posts to `/outcomes`: the event, the state to record,
/// its values or reason, and a message id made with the page, so that a form sent twice
/// (a reload, a double click) is recorded once, as a companion's repeated message is.
enum OutcomeForm {
    /// The hidden fields naming the event and where to go back to.
    static func hiddenFields(_ key: EventKey, returnTo path: String, into form: inout Markup) {
        form.empty("input", ["type": "hidden", "name": "message", "value": UUID().uuidString.lowercased()])
        form.empty("input", ["type": "hidden", "name": "activity", "value": key.activityID])
        form.empty("input", ["type": "hidden", "name": "day", "value": "\(key.day)"])
        form.empty("input", ["type": "hidden", "name": "occurrence", "value": "\(key.occurrence)"])
        form.empty("input", ["type": "hidden", "name": "return", "value": path])
    }

    /// The longest reason kept for a dose not taken.
    static let maximumReason = 200
}

extension CareWebServer {
    /// Records an outcome through the care core (the judgement a companion's completion gets:
    /// its message id, the grant, the day, the values, the conflict rule and the history),
    /// then goes back to the page it came from.
    func recordOutcome(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, form) = try await recordingForm(request, context)
        let message = try form.required("message")
        guard (1...64).contains(message.count), message.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }) else {
            throw WebFailure.badForm("\"message\" must be the page's message id")
        }
        guard let day = CalendarDay(try form.required("day")) else { throw WebFailure.badForm("\"day\" must be a date such as 2026-11-24") }
        let key = EventKey(
            activityID: try form.required("activity"), day: day,
            occurrence: try form.integer("occurrence", in: 0...(Schedule.maximumOccurrencesPerDay - 1)))
        guard let state = EventState(rawValue: try form.required("state")) else {
            throw WebFailure.badForm("\"state\" must be completed, notCompleted or initial")
        }
        let recorder = Recorder.browser(sessionID: signedIn.session.shortID, mayRecord: signedIn.session.access.mayRecord)
        let outcome = Outcome(
            state: state, values: state == .completed ? try await values(form, for: key, words: context.words) : [],
            recordedAt: configuration.clock.now, device: recorder.device, reason: state == .notCompleted ? reason(form) : nil)
        let receipt = try await core.outcomes.record(outcome, for: key, messageID: "web:\(message)", by: recorder)
        if let rejection = receipt.rejection {
            // A day to come is named as every channel names it: the day, and today where the plan is.
            let zone = try await store.plan.timeZone()
            let today = CalendarDay.containing(configuration.clock.now, in: zone)
            throw WebFailure.refused(context.words.refusal(rejection, values: [
                "day": context.words.date(key.day), "today": context.words.date(today), "zone": zone.identifier,
            ]))
        }
        logger.info("recorded from the web", metadata: [
            "event": "\(key)", "state": "\(state.rawValue)", "revision": "\(receipt.revision ?? 0)", "session": "\(signedIn.session.shortID)",
        ])
        return .seeOther(form["return"] ?? "/")
    }

    /// The values the form gives for the event's result, read as its kind asks, with numbers
    /// written as the page's language writes them ("120,5" on a German page).
    private func values(_ form: Form, for key: EventKey, words: WebWords) async throws -> [OutcomeValue] {
        let texts = form.values("value").map { words.readableNumber($0.trimmingCharacters(in: .whitespaces)) }
        do {
            return try await core.outcomes.values(texts, for: key)
        } catch let error as ResultError {
            throw WebFailure.refused(words.refusal(error))
        }
    }

    private func reason(_ form: Form) -> String? {
        let text = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : String(text.prefix(OutcomeForm.maximumReason))
    }
}
