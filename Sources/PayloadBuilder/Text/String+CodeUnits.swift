extension String {
    /// Whether `other` has the same UTF-8 code units: byte equality, not
    /// `==`, which is canonical equivalence (é as one scalar equals e +
    /// U+0301 there). For keys that must not repeat byte for byte, and for
    /// the renderer's copies of bytes it already escaped, which are only
    /// right for the very same bytes. Compares the lengths, then the two
    /// strings' bytes in place, through spans (the generic `UTF8View`
    /// `elementsEqual` cost over a thousand instructions for a URL).
    public func hasSameCodeUnits(as other: String) -> Bool {
        let mine = utf8.span, theirs = other.utf8.span
        guard mine.count == theirs.count else { return false }
        if mine.isIdentical(to: theirs) { return true }  // one string's storage, shared by both values
        for index in mine.indices where mine[index] != theirs[index] { return false }
        return true
    }
}
