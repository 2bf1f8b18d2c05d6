/// The rule for ids (of a conversation, message, sender, user, event): a
/// non-empty string without control characters and without whitespace at
/// either end, since ids travel in HTTP headers (`apns-collapse-id`, where
/// surrounding whitespace is not kept) and in collapse keys.
enum Identifier {
    /// Why `id` (non-empty, short enough) is not an id, or nil.
    static func problem(_ id: String) -> String? {
        problem(id, utf8: id.utf8.span)
    }

    /// `problem(id)` for the id whose UTF-8 is `utf8`; `id` is made only
    /// when the id is not all ASCII.
    static func problem(_ id: @autoclosure () -> String, utf8: Span<UInt8>) -> String? {
        let shape = IdentifierShape(utf8)
        if shape.hasControl { return "must not contain control characters" }
        // Ids become HTTP header values, where surrounding whitespace is not kept.
        // All ASCII (and no controls): each end is one scalar, whitespace only if a space.
        let padded: Bool
        if shape.isASCII {
            padded = shape.spaceAtAnEnd
        } else {
            let id = id()
            // Scalars, as JSON Schema's `pattern` reads them: a space followed by
            // a combining mark is one character, whitespace by its first scalar.
            padded = id.unicodeScalars.first?.properties.isWhitespace == true
                || id.unicodeScalars.last?.properties.isWhitespace == true
        }
        return padded ? "must not start or end with whitespace" : nil
    }
}

/// One pass over an id's bytes, eight at a time: what `Identifier.problem` checks.
struct IdentifierShape {
    /// A byte below 0x20 or 0x7F.
    var hasControl = false
    /// No byte of 0x80 and above.
    var isASCII = true
    /// The first or the last byte is a space.
    var spaceAtAnEnd = false

    init(_ utf8: Span<UInt8>) {
        let count = utf8.count
        guard count > 0 else { return }
        spaceAtAnEnd = utf8[0] == 0x20 || utf8[count - 1] == 0x20
        guard count >= 8 else {
            for index in utf8.indices {
                let byte = utf8[index]
                if byte < 0x20 || byte == 0x7F { hasControl = true }
                if byte >= 0x80 { isASCII = false }
            }
            return
        }
        var high: UInt64 = 0, control: UInt64 = 0
        var index = 0
        while true {
            // The last word ends at the last byte (overlapping bytes already seen).
            let word = utf8.littleEndianWord(at: min(index, count - 8))
            high |= word
            control |= Self.controlBytes(word)
            index += 8
            if index >= count { break }
        }
        hasControl = control != 0
        isASCII = high & 0x8080_8080_8080_8080 == 0
    }

    /// Non-zero when a byte of `word` is below 0x20 or is 0x7F (exact as to
    /// whether there is one: a borrow only starts at a byte that is).
    @inline(__always)
    static func controlBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let delete = word ^ (ones &* 0x7F)
        return ((word &- ones &* 0x20) & ~word & highs) | ((delete &- ones) & ~delete & highs)
    }
}
