import CareInsights
import CareReport
import Foundation
import Markup

/// A medication's adherence drawn as the insights' charts are (``ChartSVG``, wide and
/// narrow), one bar per group (taken ÷ scheduled, or for as-needed doses the count), with
/// the same figures in a table beneath for those who do not see the chart.
struct AdherenceChart {
    var chart: MedicationAdherence
    var activity: String
    var words: WebWords

    /// The bars' colour: the app's accent.
    static let color = "#0a4f96"

    func write(to markup: inout Markup) {
        let title = words["medications", "chartLabel"]
        let drawn = chart.chart(activity: activity, title: title, doses: words.language.phrase(["insights", "doses"]))
        let percent = drawn.series.allSatisfy { $0.measure == .adherence }
        let wording = InsightWording(language: words.language)
        markup.element("figure", ["class": "chart adherence"]) { figure in
            for width in [ChartSVG.wide, ChartSVG.narrow] {
                ChartSVG(
                    labels: chart.groups.map { Self.shortLabel($0.group) }, groups: drawn.groups,
                    series: drawn.series.map { ($0, Self.color) }, gridLabels: percent ? [0, 0.5, 1].map(wording.percent) : [],
                    title: title, width: width, number: wording.number
                ).write(to: &figure)
            }
            figure.element("table", ["class": "figures"]) { table in
                table.element("caption", text: title)
                table.element("thead") { head in
                    head.element("tr") { row in
                        row.element("th", ["scope": "col"], text: words["medications", "period"])
                        row.element("th", ["scope": "col"], text: words["medications", "takenColumn"])
                    }
                }
                table.element("tbody") { body in
                    for (group, fraction) in zip(chart.groups, chart.fractions) {
                        body.element("tr") { row in
                            row.element("th", ["scope": "row"], text: group.group)
                            row.element("td", text: figures(group, fraction))
                        }
                    }
                }
            }
        }
    }

    private func figures(_ group: MedicationAdherence.Group, _ fraction: Double) -> String {
        switch group.scheduled {
        case 0?: words["medications", "noneDue"]
        case let scheduled?: "\(group.taken)/\(scheduled) · " + InsightWording(language: words.language).percent(fraction)
        case nil: words.counted("medications", "takenCount", count: group.taken)
        }
    }

    /// The part of a group's identifier that tells it from its neighbours: `W34`, `08`, `15`, `2026`.
    static func shortLabel(_ group: String) -> String {
        if let week = group.split(separator: "-").last, week.hasPrefix("W") { return String(week) }
        let parts = group.split(separator: "-")
        return String(parts.last ?? Substring(group))
    }
}
