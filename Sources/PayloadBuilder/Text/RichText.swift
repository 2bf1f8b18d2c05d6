/// Turns the HTML-like markup of a rich-text message into the plain text a
/// notification shows: tags stripped, entities decoded, whitespace collapsed.
public enum RichText {
    public static func plainText(fromMarkup markup: String) -> String {
        var stripped = ""
        stripped.unicodeScalars.reserveCapacity(markup.unicodeScalars.count)
        var insideTag = false
        for scalar in markup.unicodeScalars {
            if insideTag {
                if scalar == ">" {
                    insideTag = false
                    // A tag separates words (`a<br>b`, `</p><p>`).
                    stripped.unicodeScalars.append(" ")
                }
            } else if scalar == "<" {
                insideTag = true
            } else {
                stripped.unicodeScalars.append(scalar)
            }
        }
        return collapseWhitespace(decodeEntities(stripped))
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
