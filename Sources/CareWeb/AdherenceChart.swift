import CareInsights
import Foundation
import Markup

/// A medication's adherence as SVG bars, one per group (taken ÷ scheduled, or for as-needed
/// doses the count against the most taken), with the same figures in a table beneath for
/// those who do not see the chart.
struct AdherenceChart {
    var chart: MedicationAdherence
    var words: WebWords

    static let barWidth = 24.0
    static let gap = 8.0
    static let plotHeight = 100.0

    func write(to markup: inout Markup) {
        let fractions = chart.fractions
        let width = Double(chart.groups.count) * (Self.barWidth + Self.gap) + Self.gap
        markup.element("figure", ["class": "chart adherence"]) { figure in
            figure.element("svg", [
                "viewBox": String(format: "0 0 %.0f %.0f", width, Self.plotHeight + 34), "role": "img",
                "aria-label": words["medications", "chartLabel"], "data-plot-height": String(format: "%.0f", Self.plotHeight),
            ]) { svg in
                svg.empty("line", ["class": "axis", "x1": "0", "y1": "\(Self.plotHeight)", "x2": String(format: "%.0f", width), "y2": "\(Self.plotHeight)"])
                for (index, (group, fraction)) in zip(chart.groups, fractions).enumerated() {
                    let x = Self.gap + Double(index) * (Self.barWidth + Self.gap)
                    let height = max(fraction * Self.plotHeight, group.taken > 0 ? 2 : 0)
                    svg.empty("rect", [
                        "class": "bar", "x": String(format: "%.1f", x), "y": String(format: "%.1f", Self.plotHeight - height),
                        "width": String(format: "%.0f", Self.barWidth), "height": String(format: "%.1f", height),
                        "data-group": group.group, "data-value": String(format: "%.3f", fraction),
                    ])
                    svg.element("text", [
                        "class": "label", "x": String(format: "%.1f", x + Self.barWidth / 2), "y": String(format: "%.0f", Self.plotHeight + 14),
                    ], text: Self.shortLabel(group.group))
                }
            }
            figure.element("table", ["class": "figures"]) { table in
                table.element("caption", text: words["medications", "chartLabel"])
                table.element("thead") { head in
                    head.element("tr") { row in
                        row.element("th", ["scope": "col"], text: words["medications", "period"])
                        row.element("th", ["scope": "col"], text: words["medications", "takenColumn"])
                    }
                }
                table.element("tbody") { body in
                    for (group, fraction) in zip(chart.groups, fractions) {
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
        case let scheduled?: "\(group.taken)/\(scheduled) · \(Int((fraction * 100).rounded())) %"
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
