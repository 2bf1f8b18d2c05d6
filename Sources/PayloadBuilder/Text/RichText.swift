/// Turns the HTML-like markup of a rich-text message into the plain text a
/// notification shows: tags stripped, entities decoded, whitespace collapsed.
///
/// A `<` starts a tag only when a letter, `/` or `!` follows and a `>` closes
/// it, so "I <3 you" and "1 < 2" survive. Block tags (`p`, `br`, `div`, `li`,
/// …) separate words; inline tags (`b`, `i`, `span`, …) do not.
public enum RichText {
    private static let blockTags: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]

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
                if blockTags.contains(tagName(in: scalars, from: index)) { stripped.append(" ") }
                index = end + 1
            } else {
                stripped.append(scalar)
                index += 1
            }
        }
        return collapseWhitespace(decodeEntities(String(stripped)))
    }

    /// The index of the `>` closing a tag that opens at `start`, or nil when
    /// the `<` there is just a character.
    private static func tagEnd(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let next = start + 1
        guard next < scalars.count else { return nil }
        let first = scalars[next]
        guard first == "/" || first == "!" || (first.isASCII && first.properties.isAlphabetic) else { return nil }
        return scalars[next...].firstIndex(of: ">")
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

    /// Decodes `&amp;`-style named entities (the common ones) and numeric
    /// references; anything unrecognised is kept as written.
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
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        default: break
        }
        guard name.hasPrefix("#") else { return nil }
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
