import Foundation
import Testing

@testable import CareWeb

/// The style sheet's colours, read from it, against WCAG 2.1's contrast minimum (AA: 4.5:1
/// for text, 3:1 for the focus ring and controls' outlines).
struct ContrastTests {
    /// `--name: #rrggbb` declarations of the style sheet.
    static let variables: [String: String] = {
        var found: [String: String] = [:]
        for match in WebAssets.stylesheet.matches(of: /--([a-z]+): (#[0-9a-f]{6})/) { found[String(match.1)] = String(match.2) }
        return found
    }()

    static func luminance(_ hex: String) -> Double {
        let value = Int(hex.dropFirst(), radix: 16)!
        let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { Double($0) / 255 }
        let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    static func contrast(_ a: String, _ b: String) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    func color(_ name: String) throws -> String {
        try #require(Self.variables[name], "the style sheet declares no --\(name)")
    }

    @Test func everyTextColourPassesAAOnItsBackground() throws {
        let (paper, soft) = (try color("paper"), try color("soft"))
        let pairs: [(String, String, String)] = [
            ("body text", try color("ink"), paper), ("muted text", try color("muted"), paper),
            ("links and secondary buttons", try color("accent"), paper), ("links on the header", try color("accent"), soft),
            ("button text", "#ffffff", try color("accent")), ("done button text", "#ffffff", try color("done")),
            ("done text", try color("done"), paper), ("missed text", try color("missed"), paper),
            ("error notice", try color("missed"), "#fdf0f0"), ("text on the header", try color("ink"), soft),
            ("connection banner", "#4d3800", "#fff3cd"),
        ]
        for (what, foreground, background) in pairs {
            let ratio = Self.contrast(foreground, background)
            #expect(ratio >= 4.5, "\(what): \(foreground) on \(background) is \(String(format: "%.2f", ratio)):1")
        }
        // The focus ring against the page.
        #expect(Self.contrast("#b35c00", paper) >= 3)
        #expect(WebAssets.stylesheet.contains(":focus-visible { outline: 3px solid #b35c00"))
    }

    @Test func theContrastFormulaMatchesWCAGsExamples() {
        #expect(abs(Self.contrast("#000000", "#ffffff") - 21) < 0.01)
        #expect(abs(Self.contrast("#777777", "#ffffff") - 4.48) < 0.01)
    }
}
