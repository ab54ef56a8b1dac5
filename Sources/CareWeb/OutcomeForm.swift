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

    /// The name of the field that carries a result's values, one or more (a blood pressure's
    /// two): `value[]`, as Hummingbird's form decoder reads a repeated field.
    static let valueField = "value[]"

    /// The fields posted: checked in the order the refusals name them (the message id, the
    /// day, the event, the state); the values and the reason as given (the reason trimmed,
    /// empty as none, at most ``maximumReason`` characters).
    struct Fields: Decodable {
        var message: String
        var key: EventKey
        var state: EventState
        var values: [String]
        var reason: String?
        var returnTo: String?

        enum CodingKeys: String, CodingKey {
            case message, day, activity, occurrence, state, value, reason, returnTo = "return"
        }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            message = try fields.decode(String.self, forKey: .message)
            guard (1...64).contains(message.count), message.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }) else {
                throw WebFailure.badForm("\"message\" must be the page's message id")
            }
            guard let day = CalendarDay(try fields.decode(String.self, forKey: .day)) else {
                throw WebFailure.badForm("\"day\" must be a date such as 2026-11-24")
            }
            key = EventKey(
                activityID: try fields.decode(String.self, forKey: .activity), day: day,
                occurrence: try fields.integer(.occurrence, in: 0...(Schedule.maximumOccurrencesPerDay - 1)))
            guard let state = EventState(rawValue: try fields.decode(String.self, forKey: .state)) else {
                throw WebFailure.badForm("\"state\" must be completed, notCompleted or initial")
            }
            self.state = state
            values = try fields.decodeIfPresent([String].self, forKey: .value) ?? []
            let reason = (try fields.decodeIfPresent(String.self, forKey: .reason) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            self.reason = reason.isEmpty ? nil : String(reason.prefix(OutcomeForm.maximumReason))
            returnTo = try fields.decodeIfPresent(String.self, forKey: .returnTo)
        }
    }

    /// The longest reason kept for a dose not taken.
    static let maximumReason = 200

    /// A prefix for the ids of one event's controls, unique on the page.
    static func fieldID(_ key: EventKey) -> String {
        "e-\(key.activityID)-\(key.occurrence)".map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.reduce(into: "") { $0.append($1) }
    }
}

extension CareCardController {
    /// Records an outcome through the care core (the judgement a companion's completion gets:
    /// its message id, the grant, the day, the values, the conflict rule and the history),
    /// then goes back to the page it came from.
    func recordOutcome(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, submitted) = try await forms.recording(request, context)
        let form = try submitted.decode(OutcomeForm.Fields.self)
        let (key, state) = (form.key, form.state)
        let recorder = Recorder.browser(sessionID: signedIn.session.shortID, mayRecord: signedIn.session.access.mayRecord)
        let outcome = Outcome(
            state: state, values: state == .completed ? try await values(form.values, for: key, words: context.words) : [],
            recordedAt: calendar.clock.now, device: recorder.device, reason: state == .notCompleted ? form.reason : nil)
        let receipt = try await outcomes.record(outcome, for: key, messageID: "web:\(form.message)", by: recorder)
        if let rejection = receipt.rejection {
            // A day to come is named as every channel names it: the day, and today where the plan is.
            let zone = try await store.plan.timeZone()
            let today = CalendarDay.containing(calendar.clock.now, in: zone)
            throw WebFailure.refused(context.words.refusal(rejection, values: [
                "day": context.words.date(key.day), "today": context.words.date(today), "zone": zone.identifier,
            ]))
        }
        logger.info("recorded from the web", metadata: [
            "event": "\(key)", "state": "\(state.rawValue)", "revision": "\(receipt.revision ?? 0)", "session": "\(signedIn.session.shortID)",
        ])
        return .seeOther(form.returnTo ?? "/")
    }

    /// The values the form gives for the event's result, read as its kind asks, with numbers
    /// written as the page's language writes them ("120,5" on a German page).
    private func values(_ values: [String], for key: EventKey, words: WebWords) async throws -> [OutcomeValue] {
        let texts = values.map { words.readableNumber($0.trimmingCharacters(in: .whitespaces)) }
        do {
            return try await outcomes.values(texts, for: key)
        } catch let error as ResultError {
            throw WebFailure.refused(words.refusal(error))
        }
    }
}
