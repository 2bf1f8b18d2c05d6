/// The byte-level core of JSON string escaping, shared by `JSONWriter` and
/// the pre-rendered templates.
///
/// Text that needs no escape (nearly all of it) is found eight bytes at a
/// time and copied with one append; only `"`, `\` and control characters
/// stop the scan. The output is exactly the minimal escaping `JSONWriter`
/// documents.
enum JSONEscaping {
    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Appends `utf8` as a quoted JSON string.
    static func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendUnquoted(utf8, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` escaped, without the quotes: escaping is byte by byte,
    /// so pieces escaped apart join into the escaping of the whole.
    static func appendUnquoted(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var index = firstToEscape(in: utf8, from: 0)
        while index < utf8.count {
            if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            appendEscape(of: utf8[index], to: &out)
            runStart = index + 1
            index = firstToEscape(in: utf8, from: runStart)
        }
        if runStart < utf8.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// Whether a byte must be escaped: `"`, `\` or a control character.
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The index of the first byte at or after `start` that must be escaped,
    /// or `bytes.count` when there is none.
    static func firstToEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = start
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            if mayHoldByteToEscape(word) { break }
            index += 8
        }
        while index < bytes.count, !needsEscape(base[index]) { index += 1 }
        return index
    }

    /// The index of the first byte at or after `start` that must be escaped
    /// or is not ASCII, or `bytes.count`: how far a string parser may skip
    /// without looking at bytes one by one.
    static func firstToEscapeOrNonASCII(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = start
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            if word & 0x8080_8080_8080_8080 != 0 || mayHoldByteToEscape(word) { break }
            index += 8
        }
        while index < bytes.count, base[index] < 0x80, !needsEscape(base[index]) { index += 1 }
        return index
    }

    /// True when one of the eight bytes of `word` is below 0x20, `"` or `\`
    /// (the classic SWAR "has a byte less than / equal to" tests: a byte's
    /// high bit survives only where the subtraction borrowed through it).
    /// Never false when such a byte is there; bytes of 0x80 and above (UTF-8
    /// sequences) never trigger it.
    @inline(__always)
    private static func mayHoldByteToEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quoteFound = (quote &- ones) & ~quote & highs
        let backslashFound = (backslash &- ones) & ~backslash & highs
        return control | quoteFound | backslashFound != 0
    }

    private static func appendEscape(of byte: UInt8, to out: inout [UInt8]) {
        withEscape(of: byte) { out.append(contentsOf: $0) }
    }

    /// Lends the escape sequence of one byte that `needsEscape`: the short
    /// form where JSON has one (`\n`, `\"`), else `\u00XX` in lowercase hex.
    static func withEscape(of byte: UInt8, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var sequence: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x5C, 0, 0, 0, 0, 0)
        let count: Int
        switch byte {
        case UInt8(ascii: "\""): sequence.1 = UInt8(ascii: "\""); count = 2
        case UInt8(ascii: "\\"): sequence.1 = UInt8(ascii: "\\"); count = 2
        case 0x0A: sequence.1 = UInt8(ascii: "n"); count = 2
        case 0x0D: sequence.1 = UInt8(ascii: "r"); count = 2
        case 0x09: sequence.1 = UInt8(ascii: "t"); count = 2
        case 0x08: sequence.1 = UInt8(ascii: "b"); count = 2
        case 0x0C: sequence.1 = UInt8(ascii: "f"); count = 2
        default:
            let high = hexDigits.withUTF8Buffer { $0[Int(byte >> 4)] }
            let low = hexDigits.withUTF8Buffer { $0[Int(byte & 0xF)] }
            sequence = (0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), high, low)
            count = 6
        }
        withUnsafeBytes(of: &sequence) { raw in
            body(UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[0..<count]))
        }
    }
}
