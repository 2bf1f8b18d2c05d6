extension String {
    /// Empty, or nothing but whitespace (Unicode White_Space): text that would
    /// show as nothing on a device. A blank title is no title, blank message
    /// text is no text (so a non-text kind gets its placeholder), and a blank
    /// sender name is refused.
    var isBlank: Bool { unicodeScalars.allSatisfy(\.properties.isWhitespace) }
}
