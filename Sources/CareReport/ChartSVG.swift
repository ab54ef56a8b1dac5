import CareInsights
import Markup

/// Series of a grouped bar chart drawn as inline SVG: per group, one bar per series side by
/// side, each as high as its value on its own axis (``ChartSeries/normalized``). Every bar
/// names its series, group and value (`data-…`), and the drawing its plot height, so a
/// reader (and the tests) can check each bar against the numbers. The report's charts, the
/// care app's insights and its medication pages draw with it.
public struct ChartSVG {
    /// The width a page or a report gives a chart, and one for a phone's narrow screen, where
    /// the same drawing at the wide width would shrink its labels past reading. Either is
    /// shown at about its own width in CSS pixels or wider (the care app switches at 41rem,
    /// and a phone of 320 px still draws the narrow one at 0.93), so labels of ``fontSize``
    /// render at 11 px or more.
    public static let wide = 680.0
    public static let narrow = 320.0
    static let height = 200.0
    static let left = 48.0
    static let right = 6.0
    static let top = 10.0
    static let bottom = 30.0
    static var plotHeight: Double { height - top - bottom }
    /// The height of a bar whose value is at its axis's minimum.
    static let zeroHeight = 1.2
    var plotWidth: Double { width - Self.left - Self.right }

    /// Labels of the groups under the bars.
    let labels: [String]
    let groups: [ChartGroup]
    let series: [(series: ChartSeries, color: String)]
    /// Labels of the grid lines at 0, ½ and 1 of every axis (`0 %`, `50 %`, `100 %`).
    let gridLabels: [String]
    let title: String
    /// The drawing's width (``wide`` or ``narrow``).
    var width = Self.wide
    /// A value as the page's language writes it, for the bars' titles (`66,7`).
    let number: (Double) -> String

    /// A chart of `groups` labelled `labels` beneath, with each series' bars in its colour
    /// and titled with its value written by `number`.
    public init(
        labels: [String], groups: [ChartGroup], series: [(series: ChartSeries, color: String)], gridLabels: [String], title: String,
        width: Double = Self.wide, number: @escaping (Double) -> String
    ) {
        self.labels = labels
        self.groups = groups
        self.series = series
        self.gridLabels = gridLabels
        self.title = title
        self.width = width
        self.number = number
    }

    public func write(to markup: inout Markup) {
        markup.element("svg", [
            "xmlns": "http://www.w3.org/2000/svg", "class": width == Self.wide ? "chart wide" : "chart narrow", "role": "img",
            "aria-label": title, "viewBox": "0 0 \(width) \(Self.height)", "width": "\(width)", "height": "\(Self.height)",
            "data-plot-height": "\(Self.plotHeight)", "data-zero-height": "\(Self.zeroHeight)",
        ]) { svg in
            grid(&svg)
            bars(&svg)
            groupLabels(&svg)
        }
    }

    private func y(_ fraction: Double) -> Double { Self.top + Self.plotHeight * (1 - fraction) }

    private func grid(_ svg: inout Markup) {
        for (index, fraction) in [0, 0.5, 1].enumerated() {
            let y = format(y(fraction))
            svg.empty("line", [
                "class": "grid", "x1": format(Self.left), "x2": format(width - Self.right), "y1": y, "y2": y,
                "stroke": Self.gridColor, "stroke-width": "0.6",
            ])
            if gridLabels.indices.contains(index) {
                svg.element("text", [
                    "class": "axis", "x": format(Self.left - 4), "y": format(self.y(fraction) + 4), "text-anchor": "end",
                    "font-size": format(Self.fontSize), "fill": Self.textColor, "font-family": Self.fontFamily,
                ], text: gridLabels[index])
            }
        }
    }

    private func bars(_ svg: inout Markup) {
        guard !groups.isEmpty, !series.isEmpty else { return }
        let groupWidth = plotWidth / Double(groups.count)
        let barWidth = groupWidth * 0.8 / Double(series.count)
        for (groupIndex, group) in groups.enumerated() {
            for (seriesIndex, (series, color)) in series.enumerated() {
                guard let value = series.values[groupIndex], let fraction = series.normalized[groupIndex] else { continue }
                let x = Self.left + groupWidth * (Double(groupIndex) + 0.1) + barWidth * Double(seriesIndex)
                // A zero is drawn as a sliver on the axis, so that it is not read as "no data".
                let height = max(Self.plotHeight * fraction, Self.zeroHeight)
                svg.element("rect", [
                    "class": "bar", "data-series": key(series), "data-group": group.identifier, "data-value": format(value),
                    "x": format(x), "y": format(Self.top + Self.plotHeight - height), "width": format(barWidth * 0.92), "height": format(height), "fill": color,
                ]) { $0.element("title", text: "\(series.title): \(number(value))\(series.unit.map { " \($0)" } ?? "")") }
            }
        }
    }

    /// The labels of the groups, every `step`-th when they would not fit side by side.
    private func groupLabels(_ svg: inout Markup) {
        guard !groups.isEmpty else { return }
        let groupWidth = plotWidth / Double(groups.count)
        let widest = labels.map(Self.textWidth).max() ?? 0
        let step = max(1, Int((widest / (groupWidth * 0.9)).rounded(.up)))
        for (index, label) in labels.enumerated() where index % step == 0 {
            svg.element("text", [
                "class": "axis", "x": format(Self.left + groupWidth * (Double(index) + 0.5)), "y": format(Self.height - 10),
                "text-anchor": "middle", "font-size": format(Self.fontSize), "fill": Self.textColor, "font-family": Self.fontFamily,
            ], text: label)
        }
    }

    /// The size, colour and face of every label, given on the text itself so that a page's
    /// own styles (the care app's body text, 16 px) never enlarge it past its room.
    static let fontSize = 12.0
    static let textColor = "#555"
    static let gridColor = "#ccc"
    static let fontFamily = "DejaVu Sans, sans-serif"

    /// About how wide `label` is drawn: DejaVu Sans averages some 0.6 em a character.
    static func textWidth(_ label: String) -> Double {
        Double(label.count) * fontSize * 0.6
    }

    /// `activity` or `activity/component`.
    func key(_ series: ChartSeries) -> String {
        series.component.map { "\(series.activity)/\($0)" } ?? series.activity
    }

    /// Up to two decimals, without trailing zeros: coordinates and values read back exactly enough.
    private func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
