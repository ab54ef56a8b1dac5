import CarePlan
import CarePlanStore
import Foundation
import Hummingbird
import Markup

/// The symptom tracker (`/symptoms`); its answers go to the care card's `/outcomes`.
struct SymptomsController: Sendable {
    let store: CarePlanStore, calendar: PlanCalendar

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/symptoms") { request, context in try await symptoms(request, context) }
    }

    /// The symptom tracker: the day's assessments, each occurrence a form with the control
    /// its result asks for (a scale's labelled choices, numbers with their unit and
    /// components, yes or no, text), checked by the store as a companion's answer is.
    func symptoms(_ request: Request, _ context: WebContext) async throws -> Response {
        let (signedIn, words) = (try context.session(), context.words)
        let revision = try await store.revision()
        let (today, day) = try await calendar.shownDay(request)
        let events = try await store.outcomes.events(on: day, kind: .assessment)
        let page = WebPage(title: words["symptoms", "title"], section: .symptoms, context: context, revision: revision)
        return page.response { main in
            DayNavigation(day: day, today: today, path: "/symptoms", words: words).write(to: &main)
            guard !events.isEmpty else {
                main.element("p", text: words["symptoms", "nothing"])
                return
            }
            main.element("ul", ["class": "cards"]) { list in
                for event in events {
                    list.element("li", ["class": "card state-\(event.state.rawValue)", "data-event": event.key.description]) { card in
                        let time = event.time.map { " · \($0)" } ?? ""
                        card.element("h2", ["id": "\(OutcomeForm.fieldID(event.key))-title"], text: event.activity.title + time)
                        if let question = event.activity.text {
                            card.element("p", ["class": "question", "id": "\(OutcomeForm.fieldID(event.key))-question"], text: question)
                        }
                        if let instructions = event.activity.instructions {
                            card.element("p", ["class": "instructions"], text: instructions)
                        }
                        if let outcome = event.outcome, outcome.state == .completed {
                            card.element("p", ["class": "answer"], text: words["symptoms", "answered", values: [
                                "values": outcome.values.map(words.value).joined(separator: " / "),
                            ]])
                        }
                        if signedIn.session.access.mayRecord, day <= today, let result = event.activity.result {
                            answerForm(event, result: result, signedIn: signedIn, words: words, path: "/symptoms?day=\(day)", into: &card)
                        } else if event.outcome == nil {
                            card.element("p", text: words["symptoms", "notAnswered"])
                        }
                    }
                }
            }
        }
    }

    /// A form that answers `event`: its result's control, then Save.
    private func answerForm(
        _ event: Event, result: ResultKind, signedIn: SignedIn, words: WebWords, path: String, into card: inout Markup
    ) {
        let id = OutcomeForm.fieldID(event.key)
        let recorded = event.outcome?.state == .completed ? event.outcome?.values ?? [] : []
        card.element("form", ["method": "post", "action": "/outcomes", "aria-labelledby": "\(id)-title"]) { form in
            form.csrf(signedIn)
            OutcomeForm.hiddenFields(event.key, returnTo: path, into: &form)
            form.empty("input", ["type": "hidden", "name": "state", "value": "completed"])
            switch result {
            case .scale(let min, let max, let minLabel, let maxLabel):
                let chosen = recorded.first.flatMap { if case .integer(let n) = $0.value { n } else { nil } }
                form.element("fieldset", ["class": "scale"]) { fieldset in
                    fieldset.element("legend", text: words["symptoms", "scale", values: ["min": "\(min)", "max": "\(max)"]])
                    for value in min...max {
                        let label = value == min ? minLabel.map { "\(value) · \($0)" } : value == max ? maxLabel.map { "\(value) · \($0)" } : nil
                        Self.choice(name: OutcomeForm.valueField, value: "\(value)", label: label ?? "\(value)", id: "\(id)-\(value)",
                                    checked: chosen == value, into: &fieldset)
                    }
                }
            case .number(let unit, let components):
                let parts: [String?] = components.isEmpty ? [nil] : components
                for (index, component) in parts.enumerated() {
                    let name = component.map { words.language.phrase(["insights", "components", $0]) } ?? words["symptoms", "value"]
                    form.element("label", ["for": "\(id)-\(index)"], text: "\(name.prefix(1).uppercased() + name.dropFirst()) (\(unit))")
                    let previous = recorded.indices.contains(index) ? words.typed(recorded[index]) : ""
                    form.empty("input", [
                        "type": "text", "inputmode": "decimal", "id": "\(id)-\(index)", "name": OutcomeForm.valueField, "required": "required",
                        "value": previous, "autocomplete": "off", "maxlength": "20",
                    ])
                }
            case .boolean:
                let chosen = recorded.first.flatMap { if case .boolean(let b) = $0.value { b } else { nil } }
                form.element("fieldset") { fieldset in
                    fieldset.element("legend", text: words["symptoms", "yesOrNo"])
                    Self.choice(name: OutcomeForm.valueField, value: "yes", label: words["symptoms", "yes"], id: "\(id)-yes", checked: chosen == true, into: &fieldset)
                    Self.choice(name: OutcomeForm.valueField, value: "no", label: words["symptoms", "no"], id: "\(id)-no", checked: chosen == false, into: &fieldset)
                }
            case .text:
                form.element("label", ["for": "\(id)-text"], text: words["symptoms", "text"])
                let previous = recorded.first.flatMap { if case .text(let t) = $0.value { t } else { nil } } ?? ""
                form.element("textarea", ["id": "\(id)-text", "name": OutcomeForm.valueField, "required": "required", "maxlength": "500", "rows": "3"],
                             text: previous)
            }
            form.element("p") { $0.element("button", ["type": "submit"], text: words["symptoms", "save"]) }
        }
    }

    /// A radio button with its label.
    private static func choice(name: String, value: String, label: String, id: String, checked: Bool, into markup: inout Markup) {
        markup.element("span", ["class": "choice"]) { span in
            if checked {
                span.empty("input", ["type": "radio", "name": name, "value": value, "id": id, "required": "required", "checked": "checked"])
            } else {
                span.empty("input", ["type": "radio", "name": name, "value": value, "id": id, "required": "required"])
            }
            span.element("label", ["for": id], text: label)
        }
    }
}
