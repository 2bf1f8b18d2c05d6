/// The event's string rules applied to a string the fast path read,
/// mostly on its bytes, before (or without) making the `String`.
extension JSONScanner.Text {
    /// `string.isBlank`: any ASCII byte other than whitespace answers (an
    /// ASCII byte is a scalar of its own in UTF-8); all-ASCII whitespace is
    /// blank; only text whose every ASCII byte is whitespace and that has
    /// other characters asks the scalar rule.
    var isBlank: Bool {
        for byte in utf8 where byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte) { return false }
        return isASCII || string.isBlank
    }

    /// Whether this is an id (`ObjectReader.identifierProblem` finds nothing).
    var isIdentifier: Bool {
        withUTF8 { ObjectReader.identifierProblem(string, utf8: $0) == nil }
    }

    /// Whether this is an absolute http(s) URL (`HTTPURL.isAbsolute`).
    var isAbsoluteURL: Bool {
        withUTF8 { HTTPURL.isAbsolute(string, utf8: $0) }
    }
}
