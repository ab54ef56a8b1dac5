/// Bars drawn with block characters, as charts show in a terminal.
enum TerminalBar {
    /// The width of a full bar in characters.
    static let width = 20

    /// `████████░░░░░░░░░░░░` for 0.4; a row of `·` when there is nothing to show.
    static func bar(_ fraction: Double?) -> String {
        guard let fraction else { return String(repeating: "·", count: width) }
        let filled = Int((min(1, max(0, fraction)) * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// `label` padded to `width` characters.
    static func pad(_ label: String, to width: Int) -> String {
        label.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
