import LineOutput
import Testing

struct TerminalTextTests {
    /// The sequences of issue 53: erase the line and move up, retitle the window, clear the
    /// screen. Each control is shown as its picture; the rest of the sequence is plain text.
    @Test func escapeSequencesBecomeVisible() {
        #expect(TerminalText.neutralized("\u{1B}[2K\u{1B}[1A\u{1B}[2K") == "␛[2K␛[1A␛[2K")
        #expect(TerminalText.neutralized("\u{1B}]0;owned\u{07}Plan\u{1B}[2J") == "␛]0;owned␇Plan␛[2J")
        #expect(TerminalText.neutralized("a\rb\u{0}c\u{7F}d\u{8}") == "a␍b␀c␡d␈")
    }

    /// C1 controls (CSI alone starts a sequence on some terminals) and the bidirectional
    /// overrides and isolates, which have no picture, become U+FFFD.
    @Test func c1AndBidiControlsBecomeTheReplacementCharacter() {
        #expect(TerminalText.neutralized("a\u{9B}2Jb\u{85}c") == "a\u{FFFD}2Jb\u{FFFD}c")
        #expect(TerminalText.neutralized("\u{202E}gpj.exe\u{2066}x\u{2069}") == "\u{FFFD}gpj.exe\u{FFFD}x\u{FFFD}")
    }

    /// Line breaks and tabs stay, and so does every other text, accents, emoji and marks.
    @Test func lineBreaksTabsAndOrdinaryTextAreKept() {
        let text = "Zoë's plan\n\tGolden apple 🍎 — 5 mg, שלום \u{200F}"
        #expect(TerminalText.neutralized(text) == text)
    }
}
