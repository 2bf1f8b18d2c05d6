/// Writes JSON text for the simulators' answers: strings quoted and escaped
/// per RFC 8259 (quote, backslash and control characters; everything else
/// as UTF-8), and small objects built member by member.
enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// A JSON object from members whose values are already JSON text.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
