import Markup
import Testing

/// What a person typed never opens an element: text and attribute values are escaped.
struct MarkupTests {
    @Test func specialCharactersAreEscapedAndPlainTextIsKept() {
        #expect(Markup.escape(#"a<b & 'c' "d">"#) == "a&lt;b &amp; &#39;c&#39; &quot;d&quot;&gt;")
        #expect(Markup.escape("Größe < 5 ü 🧟") == "Größe &lt; 5 ü 🧟")
        #expect(Markup.escape("Golden apple, 08:00") == "Golden apple, 08:00")
        #expect(Markup.escape("") == "")
    }

    @Test func elementsCloseAndAttributesAreEscaped() {
        var markup = Markup()
        markup.element("p", ["title": #"say "hi" <now>"#]) { p in
            p.append("1 < 2")
            p.empty("br")
            p.raw("<b>kept</b>")
        }
        #expect(markup.text == #"<p title="say &quot;hi&quot; &lt;now&gt;">1 &lt; 2<br/><b>kept</b></p>"#)
    }
}
