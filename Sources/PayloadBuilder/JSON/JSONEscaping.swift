/// The byte-level core of JSON string escaping, shared by `JSONWriter` and
/// the pre-rendered templates.
///
/// Text that needs no escape (nearly all of it) is found sixteen bytes at a
/// time (eight for a short run) and copied with one append; only `"`, `\` and control characters
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
    /// or `bytes.count` when there is none. Inlined, so that the scan is
    /// specialized for its kind at each caller (a caller that inlined this
    /// but not the scan called a general one, the kind a run-time flag).
    @inline(__always)
    static func firstToEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstStop(in: bytes, from: start, alsoNonASCII: false)
    }

    /// The index of the first byte at or after `start` that must be escaped
    /// or is not ASCII, or `bytes.count`: how far a string parser may skip
    /// without looking at bytes one by one.
    @inline(__always)
    static func firstToEscapeOrNonASCII(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstStop(in: bytes, from: start, alsoNonASCII: true)
    }

    /// Scans sixteen bytes at a time (eight for a shorter run), the last
    /// vector or word overlapping the one before (bytes already found clean
    /// stay clean), so only a run shorter than four bytes is read byte by
    /// byte.
    @inline(__always)
    private static func firstStop(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, alsoNonASCII: Bool) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let count = bytes.count
        var index = start
        guard count - index >= 16 else { return firstStopInShortRun(base, from: index, count: count, alsoNonASCII: alsoNonASCII) }
        while true {
            let flags = stopFlags16(load16(base + index), alsoNonASCII: alsoNonASCII)
            if flags != .zero { return index + firstFlaggedLane(flags) }
            if index + 32 > count { break }
            index += 16
        }
        let last = count - 16
        if last > index {
            let flags = stopFlags16(load16(base + last), alsoNonASCII: alsoNonASCII)
            if flags != .zero { return last + firstFlaggedLane(flags) }
        }
        return count
    }

    /// `firstStop` on a run of fewer than sixteen bytes: one word and the
    /// last, overlapping; four to seven bytes as two overlapping half-words
    /// tested as one word (the overlap is clean in the low half, so the
    /// lowest flag is still the first stop); fewer, byte by byte.
    @inline(__always)
    private static func firstStopInShortRun(_ base: UnsafePointer<UInt8>, from start: Int, count: Int,
                                            alsoNonASCII: Bool) -> Int {
        var index = start
        guard count - index >= 8 else {
            guard count - index >= 4 else {
                while index < count, !stops(base[index], alsoNonASCII: alsoNonASCII) { index += 1 }
                return index
            }
            let low = UInt64(load32(base + index)), high = UInt64(load32(base + count - 4))
            let flags = stopFlags(low | high << 32, alsoNonASCII: alsoNonASCII)
            guard flags != 0 else { return count }
            let lane = flags.trailingZeroBitCount >> 3
            return lane < 4 ? index + lane : count - 8 + lane
        }
        let flags = stopFlags(load(base + index), alsoNonASCII: alsoNonASCII)
        if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
        let last = count - 8
        if last > index {
            let flags = stopFlags(load(base + last), alsoNonASCII: alsoNonASCII)
            if flags != 0 { return last + flags.trailingZeroBitCount >> 3 }
        }
        return count
    }

    private typealias Lanes = SIMD16<UInt8>

    /// Sixteen bytes, the first in lane 0.
    @inline(__always)
    private static func load16(_ pointer: UnsafePointer<UInt8>) -> Lanes {
        UnsafeRawPointer(pointer).loadUnaligned(as: Lanes.self)
    }

    /// Each byte of `lanes` that stops the scan as 0xFF, the others 0, seen
    /// as two words (lanes 0 to 7 in the first, in memory order). Lane by
    /// lane, so exact: no SWAR borrow to reason about. The constants are
    /// whole vectors, typed: compared with a scalar, or with a vector whose
    /// type is inferred, the compiler loops over the lanes one at a time
    /// instead of emitting one vector compare.
    @inline(__always)
    private static func stopFlags16(_ lanes: Lanes, alsoNonASCII: Bool) -> SIMD2<UInt64> {
        let control: Lanes = Lanes(repeating: 0x20), quote: Lanes = Lanes(repeating: 0x22)
        let backslash: Lanes = Lanes(repeating: 0x5C), nonASCII: Lanes = Lanes(repeating: 0x80)
        var stops = (lanes .< control) .| (lanes .== quote) .| (lanes .== backslash)
        if alsoNonASCII { stops = stops .| (lanes .>= nonASCII) }
        let none: Lanes = Lanes(repeating: 0), all: Lanes = Lanes(repeating: 0xFF)
        // Same size, both plain lanes of bytes: the mask's bytes read as two words.
        return unsafeBitCast(none.replacing(with: all, where: stops), to: SIMD2<UInt64>.self)
    }

    /// The first lane whose flag is set (some is).
    @inline(__always)
    private static func firstFlaggedLane(_ flags: SIMD2<UInt64>) -> Int {
        let low = UInt64(littleEndian: flags[0]), high = UInt64(littleEndian: flags[1])
        return low != 0 ? low.trailingZeroBitCount >> 3 : 8 + high.trailingZeroBitCount >> 3
    }

    @inline(__always)
    private static func stops(_ byte: UInt8, alsoNonASCII: Bool) -> Bool {
        needsEscape(byte) || (alsoNonASCII && byte >= 0x80)
    }

    /// Four bytes with the first in the lowest bits, whatever the platform's order.
    @inline(__always)
    private static func load32(_ pointer: UnsafePointer<UInt8>) -> UInt32 {
        UInt32(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt32.self))
    }

    /// Eight bytes with the first in the lowest bits, whatever the platform's order.
    @inline(__always)
    private static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each byte of `word` that stops the scan, plus
    /// possibly of bytes above one that does: the classic SWAR "has a byte
    /// less than / equal to" tests, where a byte's high bit survives only
    /// where the subtraction borrowed through it. No borrow starts below the
    /// first stopping byte, so the lowest flag is exactly the first stop.
    /// Bytes of 0x80 and above (UTF-8) stop only with `alsoNonASCII`.
    @inline(__always)
    private static func stopFlags(_ word: UInt64, alsoNonASCII: Bool) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quoteFound = (quote &- ones) & ~quote & highs
        let backslashFound = (backslash &- ones) & ~backslash & highs
        let nonASCII = alsoNonASCII ? word & highs : 0
        return control | quoteFound | backslashFound | nonASCII
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
