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
    fileprivate static let blockTags: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]

    /// Elements whose content is code, not text: dropped with their tags.
    fileprivate static let rawTextTags: Set<String> = ["script", "style"]

    public static func plainText(fromMarkup markup: String) -> String {
        var scanner = TagScanner(markup)
        return collapseWhitespace(decodeEntities(scanner.strippedText()))
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

/// One left-to-right pass over the markup that drops tags, comments and
/// script/style contents. Linear on any input: every scan either ends a tag,
/// whose stretch is then skipped, or fails once and turns its rule off for
/// the rest of the input (a quote or comment that never closes), so no
/// stretch is scanned again and again (64 KiB of `<!-- >` or of quoted `>`).
private struct TagScanner {
    private let scalars: [Unicode.Scalar]
    /// A `<` after the last `>` can start no tag: knowing where that is keeps
    /// "<a<a<a…" without any `>` linear instead of scanning to the end each time.
    private let lastClose: Int
    /// Whether a quoted attribute value may hold a `>`; off once a quote-aware
    /// scan found no end (a quote that never closes).
    private var quotesHonoured = true
    /// Whether a comment ends only at `-->`; off once one found none.
    private var commentsHonoured = true

    init(_ markup: String) {
        scalars = Array(markup.unicodeScalars)
        lastClose = scalars.lastIndex(of: ">") ?? -1
    }

    mutating func strippedText() -> String {
        var stripped = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", index < lastClose, let end = tagEnd(from: index) {
                let name = tagName(from: index)
                if RichText.blockTags.contains(name) { stripped.append(" ") }
                let opens = scalars[index + 1] != "/" && scalars[end - 1] != "/"
                index = end + 1
                if opens, RichText.rawTextTags.contains(name) { index = rawTextEnd(name: name, from: index) }
            } else {
                stripped.append(scalar)
                index += 1
            }
        }
        return String(stripped)
    }

    /// The index of the `>` closing a tag that opens at `start`, or nil when
    /// the `<` there is just a character. A comment ends at `-->`; in other
    /// tags a quoted attribute value (a quote right after `=`) may hold a
    /// `>`. When those rules find no end, the first `>` ends the tag.
    private mutating func tagEnd(from start: Int) -> Int? {
        let next = start + 1
        guard next < scalars.count else { return nil }
        let first = scalars[next]
        guard first == "/" || first == "!" || (first.isASCII && first.properties.isAlphabetic) else { return nil }
        if first == "!", scalars[next...].starts(with: ["!", "-", "-"]) {
            if commentsHonoured {
                var index = next + 3
                while index + 2 < scalars.count {
                    if scalars[index] == "-", scalars[index + 1] == "-", scalars[index + 2] == ">" { return index + 2 }
                    index += 1
                }
                commentsHonoured = false
            }
            return scalars[next...].firstIndex(of: ">")
        }
        if quotesHonoured {
            var quote: Unicode.Scalar?
            var afterEquals = false
            var index = next
            while index < scalars.count {
                let scalar = scalars[index]
                if let open = quote {
                    if scalar == open { quote = nil }
                } else if scalar == ">" {
                    return index
                } else if afterEquals, scalar == "\"" || scalar == "'" {
                    quote = scalar
                    afterEquals = false
                } else if scalar == "=" {
                    afterEquals = true
                } else if !scalar.properties.isWhitespace {
                    afterEquals = false
                }
                index += 1
            }
            quotesHonoured = false
        }
        return scalars[next...].firstIndex(of: ">")
    }

    /// The lowercase name of the tag opening at `start` (`</P >` → `p`).
    private func tagName(from start: Int) -> String {
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

    /// Where the text resumes after a `<script>` or `<style>` element whose
    /// content starts at `start`: after its end tag (`</script …>`, any
    /// case), or at the end when there is none.
    private func rawTextEnd(name: String, from start: Int) -> Int {
        let closing = Array(("</" + name).unicodeScalars)
        var index = start
        while index + closing.count <= scalars.count {
            if matches(closing, at: index) {
                let after = index + closing.count
                let boundary = after == scalars.count || !(scalars[after].isASCII && scalars[after].properties.isAlphabetic)
                if boundary {
                    guard let end = scalars[after...].firstIndex(of: ">") else { return scalars.count }
                    return end + 1
                }
            }
            index += 1
        }
        return scalars.count
    }

    /// Whether `expected` (`</` and a lowercase ASCII name) is at `index`,
    /// letters compared without case.
    private func matches(_ expected: [Unicode.Scalar], at index: Int) -> Bool {
        for offset in 0..<expected.count {
            let actual = scalars[index + offset].value
            let wanted = expected[offset].value
            let letter = (0x61...0x7A).contains(wanted)
            guard actual == wanted || (letter && actual == wanted - 0x20) else { return false }
        }
        return true
    }
}
