/// Text for a person at a terminal, made unable to drive it: the one rule every line of
/// text output and every log record goes through (``LineOutput/write(text:)``). Names,
/// titles and instructions come from people and FHIR servers; an escape sequence in one
/// could clear the screen, erase lines or retitle the window.
///
/// Each C0 control but the line feed and tab, and DEL, becomes its Control Pictures symbol
/// (ESC `␛`, CR `␍`, DEL `␡`): one column wide like any letter, it shows which control was
/// there, and cannot be read as something the program wrote. The C1 controls and the
/// bidirectional embeddings, overrides and isolates (which reorder the rest of a line) have
/// no picture and become U+FFFD `�`. Line feeds stay: they are how the program breaks its
/// lines, and a break in a text only starts a new line; tabs only move right.
public enum TerminalText {
    /// `text` with every control a terminal would act on replaced as described above.
    public static func neutralized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isControl(scalar) ? replacement(of: scalar) : scalar)
        }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func replacement(of scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value)!
        case 0x7F: "\u{2421}"
        default: "\u{FFFD}"
        }
    }
}
