import CareInsights
import CareLanguage
import CarePlan
import Foundation
import Markup

extension CareReport {
    /// Colour-blind-safe colours (Okabe and Ito) for series without a tint of their own.
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#B8A000"]

    /// The report as one XHTML document.
    public var html: String {
        var markup = Markup()
        markup.raw("<!DOCTYPE html>\n")
        markup.element("html", ["xmlns": "http://www.w3.org/1999/xhtml", "lang": language.code]) { html in
            html.element("head") { head in
                head.empty("meta", ["charset": "utf-8"])
                head.element("title", text: "\(phrase("title")) · \(planTitle)")
                head.element("style") { $0.raw(Self.style(paper)) }
            }
            html.element("body") { body in
                header(&body)
                writeInsights(to: &body)
                activities(&body)
                contactList(&body)
                commentList(&body)
                body.element("footer", text: phrase("footer"))
            }
        }
        return markup.text
    }

    /// The report's summary, messages and charts (each under its `h2`), for a page of its
    /// own (the care app's insights) as for the report. Nothing in them needs a style
    /// attribute or a script.
    /// With `forScreens`, each chart is drawn twice, wide and narrow (classes `wide` and
    /// `narrow`), for the page's styles to show the one that fits its screen.
    public func writeInsights(to markup: inout Markup, forScreens: Bool = false) {
        summary(&markup)
        messages(&markup)
        charts(&markup, widths: forScreens ? [ChartSVG.wide, ChartSVG.narrow] : [ChartSVG.wide])
    }

    var wording: InsightWording { InsightWording(language: language) }

    func phrase(_ key: String, count: Int? = nil, _ values: [String: String] = [:]) -> String {
        language.phrase(["report", key], count: count.map { Decimal($0) }, values)
    }

    private func header(_ body: inout Markup) {
        body.element("h1", text: "\(phrase("title")): \(planTitle)")
        let period = phrase("range", ["first": wording.date(insights.first), "last": wording.date(insights.last)])
        let made = CalendarDay.containing(madeAt, in: timeZone)
        body.element("p", ["class": "meta"]) { meta in
            let patient = self.patient.map { patient in
                [patient.name, patient.birthDate.map { phrase("born", ["date": wording.date($0)]) }, patient.identifier]
                    .compactMap { $0 }.joined(separator: ", ")
            }
            for (index, (label, value)) in ([patient.map { (phrase("patient"), $0) }].compactMap { $0 } + [
                (phrase("plan"), planTitle), (phrase("period"), period), (phrase("timeZone"), timeZone.identifier),
                (phrase("made"), "\(wording.date(made)) \(TimeOfDay.containing(madeAt, in: timeZone))"),
            ]).enumerated() {
                if index > 0 { meta.append(" · ") }
                meta.element("span", ["class": "label"], text: label + ": ")
                meta.append(value)
            }
        }
    }

    private func summary(_ body: inout Markup) {
        body.element("h2", text: phrase("summaryTitle"))
        let totals = totals
        func part(_ tally: Tally, _ kind: String) -> String {
            guard let fraction = tally.fraction else { return phrase("summaryNone", ["kind": phrase(kind)]) }
            return phrase("summaryPart", [
                "percent": wording.percent(fraction), "kind": phrase(kind), "completed": "\(tally.completed)", "due": "\(tally.total)",
            ])
        }
        let count = { (kind: InsightMessage.Kind) in insights.messages.filter { $0.kind == kind }.count }
        let days = insights.first.distance(to: insights.last) + 1
        body.element("p", ["class": "summary"], text: phrase("summary", [
            "days": language.phrase(["insights", "days"], count: Decimal(days)),
            "first": wording.label(insights.first), "last": wording.label(insights.last),
            "interventions": part(totals.interventions, "interventions"), "assessments": part(totals.assessments, "assessments"),
        ]) + " " + phrase("messagesCount", [
            "alerts": phrase("alerts", count: count(.alert)), "comparisons": phrase("comparisons", count: count(.comparison)),
            "tips": phrase("tips", count: count(.tip)),
        ]))
    }

    private func messages(_ body: inout Markup) {
        body.element("h2", text: phrase("messagesTitle"))
        if insights.messages.isEmpty { body.element("p", text: phrase("noMessages")) }
        for message in insights.messages {
            body.element("div", ["class": "message \(message.kind.rawValue)", "data-rule": message.rule]) { div in
                div.element("span", ["class": "kind"], text: language.phrase(["report", "kinds", message.kind.rawValue]))
                div.element("strong", text: message.title)
                div.element("p", text: message.text)
            }
        }
    }

    private func charts(_ body: inout Markup, widths: [Double] = [ChartSVG.wide]) {
        let chart = insights.chart
        let colored = chart.series.enumerated().map { index, series in
            let tint = series.measurement == nil ? insights.record.activity(series.activity)?.tintColor.map { String($0.prefix(7)) } : nil
            return (series: series, color: tint ?? Self.palette[index % Self.palette.count])
        }
        let byWeek = chart.grouping == .week
        let labels = chart.groups.map { group in
            byWeek ? group.identifier.components(separatedBy: "-").last ?? group.identifier
                : language.phrase(["insights", "weekdaysShort", group.first.weekday.name]) + " \(group.first.day)"
        }
        body.element("h2", text: phrase("chartsTitle"))
        let figures: [(name: String, title: String, belongs: (ChartSeries) -> Bool)] = [
            ("intervention", byWeek ? "interventionChartWeek" : "interventionChart",
             { insights.record.activity($0.activity)?.kind == .intervention && $0.measurement == nil }),
            ("assessment", byWeek ? "assessmentChartWeek" : "assessmentChart",
             { insights.record.activity($0.activity)?.kind == .assessment && $0.measurement == nil }),
            ("measurement", byWeek ? "measurementChartWeek" : "measurementChart", { $0.measurement != nil }),
        ]
        for (name, title, belongs) in figures {
            let series = colored.filter { belongs($0.series) }
            guard !series.isEmpty else { continue }
            let percent = series.allSatisfy { $0.series.unit == "%" && $0.series.axis == .percent }
            body.element("figure", ["class": "chart-\(name)"]) { figure in
                figure.element("figcaption", text: phrase(title))
                for width in widths {
                    ChartSVG(
                        labels: labels, groups: chart.groups, series: series,
                        gridLabels: percent ? [0, 0.5, 1].map(wording.percent) : [], title: phrase(title), width: width,
                        number: wording.number
                    ).write(to: &figure)
                }
                figure.element("ul", ["class": "legend"]) { legend in
                    for (series, color) in series {
                        legend.element("li") { item in
                            item.element("svg", ["class": "swatch", "viewBox": "0 0 10 10", "aria-hidden": "true"]) { swatch in
                                swatch.empty("rect", ["width": "10", "height": "10", "fill": color])
                            }
                            let noData = series.values.allSatisfy { $0 == nil }
                            item.append("\(series.title) (\(noData ? phrase("noData") : axis(series)))")
                        }
                    }
                }
            }
        }
    }

    /// `0 – 100 %`, `0 (none) – 10 (unbearable)`.
    private func axis(_ series: ChartSeries) -> String {
        let (low, high) = series.axis.ends(wording.number)
        return phrase("axis", ["low": low, "high": high]) + (series.unit.map { " \($0)" } ?? "")
    }

    private func activities(_ body: inout Markup) {
        let record = insights.record
        let groups = insights.chart.groups
        body.element("h2", text: phrase("activitiesTitle"))
        body.element("table", ["class": "activities"]) { table in
            table.element("thead") { head in
                head.element("tr") { row in
                    row.element("th", text: phrase("activity"))
                    for group in groups {
                        row.element("th", text: insights.chart.grouping == .week ? group.identifier : wording.label(group.first))
                    }
                }
            }
            table.element("tbody") { rows in
                for activity in record.activities {
                    rows.element("tr", ["data-activity": activity.identifier]) { row in
                        row.element("td", text: activity.title)
                        for group in groups {
                            let days = (group.first...group.last).map { record.day($0, of: activity) }
                            let tally = days.reduce(Tally()) { $0 + Tally(completed: $1.completed, total: $1.counted) }
                            let taken = days.map(\.takenAsNeeded).reduce(0, +)
                            if activity.schedule.asNeeded {
                                row.element("td", ["class": taken > 0 ? "taken" : "empty"],
                                            text: taken > 0 ? phrase("taken", count: taken) : phrase("notDue"))
                            } else if let fraction = tally.fraction {
                                let shade = fraction == 1 ? "all" : fraction == 0 ? "none" : "part"
                                row.element("td", ["class": shade], text: "\(tally.completed)/\(tally.total)")
                            } else {
                                row.element("td", ["class": "empty"], text: phrase("notDue"))
                            }
                        }
                    }
                }
            }
        }
    }

    private func contactList(_ body: inout Markup) {
        guard !contacts.isEmpty else { return }
        body.element("h2", text: phrase("contactsTitle"))
        body.element("ul", ["class": "contacts"]) { list in
            for contact in contacts {
                list.element("li") { item in
                    item.element("strong", text: contact.fullName)
                    let role = [contact.title, contact.relation].compactMap { $0 }.joined(separator: ", ")
                    if !role.isEmpty { item.append(" · \(role)") }
                    if let phone = contact.phone {
                        item.append(" · ")
                        item.element("a", ["href": "tel:\(phone.filter { !$0.isWhitespace })"], text: phone)
                    }
                    if let email = contact.email {
                        item.append(" · ")
                        item.element("a", ["href": "mailto:\(email)"], text: email)
                    }
                }
            }
        }
    }

    private func commentList(_ body: inout Markup) {
        guard !comments.isEmpty else { return }
        body.element("h2", text: phrase("commentsTitle"))
        for comment in comments { body.element("p", ["class": "comment"], text: comment) }
    }

    static func style(_ paper: Paper) -> String {
        """
        @page { size: \(paper == .a4 ? "A4" : "letter"); margin: 14mm 14mm 16mm; }
        html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { font-family: "DejaVu Sans", "Helvetica", sans-serif; font-size: 9.5pt; color: #222; margin: 0; }
        h1 { font-size: 17pt; margin: 0 0 2mm; }
        h2 { font-size: 12pt; margin: 5mm 0 2mm; border-bottom: 0.5pt solid #999; page-break-after: avoid; }
        .meta { color: #555; margin: 0; } .meta .label { color: #888; }
        .message { margin: 1.5mm 0; padding: 1.2mm 2.5mm; border-left: 2.5pt solid #999; page-break-inside: avoid; }
        .message p { margin: 0.5mm 0 0; }
        .alert { border-color: #D55E00; background: #fdf0e8; }
        .comparison { border-color: #0072B2; background: #eaf3fa; }
        .tip { border-color: #009E73; background: #e8f6f1; }
        .kind { font-size: 7pt; font-weight: bold; text-transform: uppercase; letter-spacing: 0.05em; margin-right: 2mm; color: #555; }
        figure { margin: 0 0 3mm; page-break-inside: avoid; }
        figcaption { font-weight: bold; margin-bottom: 1mm; }
        svg.chart { width: 100%; height: auto; display: block; }
        .legend { list-style: none; padding: 0; margin: 1mm 0 0; columns: 2; font-size: 8pt; }
        .swatch { display: inline-block; width: 3mm; height: 3mm; margin-right: 1.5mm; vertical-align: -0.3mm; }
        table.activities { border-collapse: collapse; width: 100%; font-size: 7.5pt; }
        th, td { border: 0.5pt solid #bbb; padding: 0.7mm 0.8mm; text-align: center; }
        th:first-child, td:first-child { text-align: left; }
        tr { page-break-inside: avoid; }
        td.all { background: #d4eddc; } td.part { background: #fcefc7; } td.none { background: #f6d5cc; } td.taken { background: #e6eef8; }
        .contacts { padding-left: 4mm; }
        footer { margin-top: 6mm; color: #666; font-size: 7.5pt; }
        """
    }
}
