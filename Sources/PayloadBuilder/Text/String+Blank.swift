extension String {
    /// Empty, or nothing but whitespace (Unicode White_Space): text that would
    /// show as nothing on a device. A blank title is no title, blank message
    /// text is no text (so a non-text kind gets its placeholder), and a blank
    /// sender name is refused.
    ///
    /// ASCII is judged without the Unicode property tables (every event's
    /// title and names pass here, and a table lookup per scalar is dear):
    /// its White_Space characters are U+0009–U+000D and U+0020.
    var isBlank: Bool {
        for scalar in unicodeScalars {
            if scalar.isASCII {
                guard scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) else { return false }
            } else if !scalar.properties.isWhitespace {
                return false
            }
        }
        return true
    }
}
