/// Turns the HTML-like markup of a rich-text message into the plain text a
/// notification shows: tags stripped, entities decoded, whitespace collapsed.
///
/// A `<` starts a tag only when a letter, `/` or `!` follows and a `>` closes
/// it, so "I <3 you" and "1 < 2" survive; a `>` inside a quoted attribute
/// value does not close it, and a comment (`<!-- … -->`) ends only at `-->`.
/// Block tags (`p`, `br`, `div`, `li`, …) separate words; inline tags (`b`,
/// `i`, `span`, …) do not. What a `<script>` or `<style>` element holds is
/// code, not text, and is dropped with it. Entities are HTML 4's named ones
/// (`HTMLEntities`) and numeric references, each ended by `;`.
public enum RichText {
    private static let blockTags: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]

    /// Elements whose content is code, not text: dropped with their tags.
    private static let rawTextTags: Set<String> = ["script", "style"]

    public static func plainText(fromMarkup markup: String) -> String {
        let scalars = Array(markup.unicodeScalars)
        // A `<` after the last `>` can start no tag: knowing where that is keeps
        // "<a<a<a…" without any `>` linear instead of scanning to the end each time.
        let lastClose = scalars.lastIndex(of: ">") ?? -1
        var stripped = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", index < lastClose, let end = tagEnd(in: scalars, from: index) {
                let name = tagName(in: scalars, from: index)
                if blockTags.contains(name) { stripped.append(" ") }
                let opens = scalars[index + 1] != "/" && scalars[end - 1] != "/"
                index = end + 1
                if opens, rawTextTags.contains(name) { index = rawTextEnd(in: scalars, name: name, from: index) }
            } else {
                stripped.append(scalar)
                index += 1
            }
        }
        return collapseWhitespace(decodeEntities(String(stripped)))
    }

    /// The index of the `>` closing a tag that opens at `start`, or nil when
    /// the `<` there is just a character. A comment ends at `-->`; in other
    /// tags a `>` inside a quoted value is skipped. An unclosed comment or
    /// quote falls back to the first `>`.
    private static func tagEnd(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let next = start + 1
        guard next < scalars.count else { return nil }
        let first = scalars[next]
        guard first == "/" || first == "!" || (first.isASCII && first.properties.isAlphabetic) else { return nil }
        if first == "!", scalars[next...].starts(with: ["!", "-", "-"]) {
            var index = next + 3
            while index + 2 < scalars.count {
                if scalars[index] == "-", scalars[index + 1] == "-", scalars[index + 2] == ">" { return index + 2 }
                index += 1
            }
            return scalars[next...].firstIndex(of: ">")
        }
        var quote: Unicode.Scalar?
        var index = next
        while index < scalars.count {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == ">" {
                return index
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            }
            index += 1
        }
        return scalars[next...].firstIndex(of: ">")
    }

    /// Where the text resumes after a `<script>` or `<style>` element whose
    /// content starts at `start`: after its end tag (`</script …>`, any
    /// case), or at the end when there is none.
    private static func rawTextEnd(in scalars: [Unicode.Scalar], name: String, from start: Int) -> Int {
        let closing = Array(("</" + name).unicodeScalars)
        var index = start
        while index + closing.count <= scalars.count {
            if scalars[index] == "<",
               zip(scalars[index..<(index + closing.count)], closing).allSatisfy({ $0.properties.lowercaseMapping == String($1) }),
               let end = scalars[(index + closing.count)...].firstIndex(of: ">") {
                let after = index + closing.count
                let boundary = after == scalars.count || !(scalars[after].isASCII && scalars[after].properties.isAlphabetic)
                if boundary { return end + 1 }
            }
            index += 1
        }
        return scalars.count
    }

    /// The lowercase name of the tag opening at `start` (`</P >` → `p`).
    private static func tagName(in scalars: [Unicode.Scalar], from start: Int) -> String {
        var index = start + 1
        if index < scalars.count, scalars[index] == "/" { index += 1 }
        var name = ""
        while index < scalars.count, scalars[index].isASCII,
              scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index]) {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        return name.lowercased()
    }

    /// Decodes HTML 4's named entities (`&eacute;`, `&hellip;`, …) and numeric
    /// references, each ended by `;`; anything unrecognised is kept as written.
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            if let semicolon = rest[afterAmpersand...].prefix(12).firstIndex(of: ";"),
               let decoded = entity(String(rest[afterAmpersand..<semicolon])) {
                output.unicodeScalars.append(decoded)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output += "&"
                rest = rest[afterAmpersand...]
            }
        }
        output += rest
        return output
    }

    private static func entity(_ name: String) -> Unicode.Scalar? {
        // A no-break space is a space here, like any other run of whitespace.
        if name == "nbsp" { return " " }
        guard name.hasPrefix("#") else { return HTMLEntities.character(named: Substring(name)) }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.hasPrefix("x") || digits.hasPrefix("X") {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return scalar
    }

    /// Collapses every run of whitespace to one space and trims the ends.
    public static func collapseWhitespace(_ text: String) -> String {
        var output = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.unicodeScalars.append(" ") }
                pendingSpace = false
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
