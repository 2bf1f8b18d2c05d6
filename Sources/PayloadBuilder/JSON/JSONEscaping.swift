/// The byte-level core of JSON string escaping, shared by `JSONWriter`,
/// `ByteWriter` and the pre-rendered templates.
///
/// Text that needs no escape (nearly all of it) is found sixteen bytes at a
/// time (eight for a short run) and copied with one append; only `"`, `\`
/// and control characters stop the scan. The output is exactly the minimal
/// escaping `JSONWriter` documents.
///
/// Everything here reads through `Span`, bounds-checked; the scan kernel
/// (`firstStop`) reads whole vectors and words (`Span+Words.swift`, in
/// `Event`), each assembled from bytes after one check of its range.
enum JSONEscaping {
    /// Appends `utf8` as a quoted JSON string.
    static func appendQuoted(_ utf8: Span<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendUnquoted(utf8, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` escaped, without the quotes: escaping is byte by byte,
    /// so pieces escaped apart join into the escaping of the whole.
    static func appendUnquoted(_ utf8: Span<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + utf8.count)
        var runStart = 0
        var index = firstToEscape(in: utf8, from: 0)
        while true {
            for offset in runStart..<index { out.append(utf8[offset]) }
            guard index < utf8.count else { return }
            let escape = Escape(of: utf8[index])
            for offset in 0..<escape.count { out.append(escape.bytes[offset]) }
            runStart = index + 1
            index = firstToEscape(in: utf8, from: runStart)
        }
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
    static func firstToEscape(in bytes: Span<UInt8>, from start: Int) -> Int {
        firstStop(in: bytes, from: start, alsoNonASCII: false)
    }

    /// The index of the first byte at or after `start` that must be escaped
    /// or is not ASCII, or `bytes.count`: how far a string parser may skip
    /// without looking at bytes one by one.
    @inline(__always)
    static func firstToEscapeOrNonASCII(in bytes: Span<UInt8>, from start: Int) -> Int {
        firstStop(in: bytes, from: start, alsoNonASCII: true)
    }

    /// The scan kernel. Sixteen bytes at a time (eight for a shorter run),
    /// the last vector or word overlapping the one before (bytes already
    /// found clean stay clean), so only a run shorter than four bytes is
    /// read byte by byte. Four to seven bytes are two overlapping
    /// half-words tested as one word (the overlap is clean in the low half,
    /// so the lowest flag is still the first stop).
    ///
    /// Every read is at an offset `o` with `start <= o` and `o + width <=
    /// count`, chosen by the branch that leads to it, and checked again by
    /// the span: that check keeps every read in bounds, so the offsets are
    /// worked out with wrapping arithmetic, without overflow checks of
    /// their own.
    @inline(__always)
    private static func firstStop(in bytes: Span<UInt8>, from start: Int, alsoNonASCII: Bool) -> Int {
        let count = bytes.count
        precondition(start >= 0 && start <= count)
        var index = start
        guard count &- index >= 16 else {
            guard count &- index >= 8 else {
                guard count &- index >= 4 else {
                    while index < count, !stops(bytes[index], alsoNonASCII: alsoNonASCII) { index &+= 1 }
                    return index
                }
                let low = UInt64(bytes.littleEndianHalfWord(at: index))
                let high = UInt64(bytes.littleEndianHalfWord(at: count &- 4))
                let flags = stopFlags(low | high << 32, alsoNonASCII: alsoNonASCII)
                guard flags != 0 else { return count }
                let lane = flags.trailingZeroBitCount >> 3
                return lane < 4 ? index &+ lane : count &- 8 &+ lane
            }
            let flags = stopFlags(bytes.littleEndianWord(at: index), alsoNonASCII: alsoNonASCII)
            if flags != 0 { return index &+ flags.trailingZeroBitCount >> 3 }
            let last = count &- 8
            if last > index {
                let flags = stopFlags(bytes.littleEndianWord(at: last), alsoNonASCII: alsoNonASCII)
                if flags != 0 { return last &+ flags.trailingZeroBitCount >> 3 }
            }
            return count
        }
        while true {
            let stops = stopLanes(bytes.lanes(at: index), alsoNonASCII: alsoNonASCII)
            if anyLane(stops) { return index &+ firstLane(stops) }
            if index &+ 32 > count { break }
            index &+= 16
        }
        let last = count &- 16
        if last > index {
            let stops = stopLanes(bytes.lanes(at: last), alsoNonASCII: alsoNonASCII)
            if anyLane(stops) { return last &+ firstLane(stops) }
        }
        return count
    }

    private typealias Lanes = SIMD16<UInt8>

    /// Each lane of `lanes` that stops the scan as 0xFF, the others 0. Lane
    /// by lane, so exact: no SWAR borrow to reason about. The constants are
    /// whole vectors, typed: compared with a scalar, or with a vector whose
    /// type is inferred, the compiler loops over the lanes one at a time
    /// instead of emitting one vector compare.
    @inline(__always)
    private static func stopLanes(_ lanes: Lanes, alsoNonASCII: Bool) -> Lanes {
        let control: Lanes = Lanes(repeating: 0x20), quote: Lanes = Lanes(repeating: 0x22)
        let backslash: Lanes = Lanes(repeating: 0x5C), nonASCII: Lanes = Lanes(repeating: 0x80)
        var stops = (lanes .< control) .| (lanes .== quote) .| (lanes .== backslash)
        if alsoNonASCII { stops = stops .| (lanes .>= nonASCII) }
        let none: Lanes = Lanes(repeating: 0), all: Lanes = Lanes(repeating: 0xFF)
        return none.replacing(with: all, where: stops)
    }

    /// Whether some lane is set: the halves folded together, which the
    /// compiler makes one mask test (`SIMDMask`'s `any` is a call).
    @inline(__always)
    private static func anyLane(_ stops: Lanes) -> Bool {
        let eight = stops.lowHalf | stops.highHalf
        let four = eight.lowHalf | eight.highHalf
        let two = four.lowHalf | four.highHalf
        return two[0] | two[1] != 0
    }

    /// The first lane that is set (some is): looked for only once a vector
    /// was found to stop the scan.
    @inline(__always)
    private static func firstLane(_ stops: Lanes) -> Int {
        for lane in 0..<16 where stops[lane] != 0 { return lane }
        return 16
    }

    @inline(__always)
    private static func stops(_ byte: UInt8, alsoNonASCII: Bool) -> Bool {
        needsEscape(byte) || (alsoNonASCII && byte >= 0x80)
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

    /// The escape sequence of one byte that `needsEscape`: the short form
    /// where JSON has one (`\n`, `\"`), else `\u00XX` in lowercase hex.
    /// A value: its first `count` bytes are the sequence.
    struct Escape {
        private(set) var bytes = InlineArray<6, UInt8>(repeating: UInt8(ascii: "\\"))
        let count: Int

        init(of byte: UInt8) {
            let short: UInt8
            switch byte {
            case UInt8(ascii: "\""): short = UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): short = UInt8(ascii: "\\")
            case 0x0A: short = UInt8(ascii: "n")
            case 0x0D: short = UInt8(ascii: "r")
            case 0x09: short = UInt8(ascii: "t")
            case 0x08: short = UInt8(ascii: "b")
            case 0x0C: short = UInt8(ascii: "f")
            default:
                bytes[1] = UInt8(ascii: "u")
                bytes[2] = UInt8(ascii: "0")
                bytes[3] = UInt8(ascii: "0")
                bytes[4] = Self.hexDigit(byte >> 4)
                bytes[5] = Self.hexDigit(byte & 0xF)
                count = 6
                return
            }
            bytes[1] = short
            count = 2
        }

        /// The lowercase hex digit of a value below 16.
        @inline(__always)
        private static func hexDigit(_ value: UInt8) -> UInt8 {
            value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
        }
    }
}
