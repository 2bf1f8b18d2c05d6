/// The event's string rules applied to a string the scanner read, mostly
/// on its bytes, before (or without) making the `String`.
extension JSONScanner.Text {
    /// `string.isBlank`: any ASCII byte other than whitespace answers (an
    /// ASCII byte is a scalar of its own in UTF-8); all-ASCII whitespace is
    /// blank; only text whose every ASCII byte is whitespace and that has
    /// other characters asks the scalar rule.
    var isBlank: Bool {
        for byte in utf8 where byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte) { return false }
        return isASCII || string.isBlank
    }

    /// Why this is not an id (`Identifier.problem`), or nil.
    var identifierProblem: String? {
        withUTF8 { Identifier.problem(string, utf8: $0) }
    }

    /// Whether this is an absolute http(s) URL (`HTTPURL.isAbsolute`).
    var isAbsoluteURL: Bool {
        withUTF8 { HTTPURL.isAbsolute(string, utf8: $0) }
    }

    /// Why this is not a `platform` token (`DeviceToken.problem`), or nil.
    func deviceTokenProblem(_ platform: Platform) -> String? {
        withUTF8 { DeviceToken.problem(utf8: $0, platform: platform) }
    }

    /// The value `parse` reads from the bytes (`MessageKind(utf8:)` and the like), or nil.
    func parsed<Value>(_ parse: (UnsafeBufferPointer<UInt8>) -> Value?) -> Value? {
        withUTF8(parse)
    }
}
