/// Which kinds of byte a run of bytes holds, sixteen bytes at a time: what
/// the URL and FCM-token rules ask (any byte of 0x80 and above; any space,
/// control or DEL), without looking at the bytes one by one.
enum PrintableASCII {
    /// Whether `bytes` hold a byte of 0x80 or above (not ASCII), and whether
    /// they hold a byte of 0x20 or below or 0x7F (space, control, DEL).
    ///
    /// A byte read twice counts the same, so the last vector (or, for
    /// fewer than sixteen bytes, word or half-word) overlaps the one before
    /// instead of a byte loop over the rest.
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> (nonASCII: Bool, spaceOrControl: Bool) {
        guard let base = bytes.baseAddress else { return (false, false) }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        guard count >= 16 else { return classifyShort(raw, count: count) }
        var seen = Flags()
        var index = 0
        while index + 16 <= count {
            seen.add(raw.loadUnaligned(fromByteOffset: index, as: Lanes.self))
            index += 16
        }
        if index < count { seen.add(raw.loadUnaligned(fromByteOffset: count - 16, as: Lanes.self)) }
        return (isAnySet(seen.nonASCII), isAnySet(seen.spaceOrControl))
    }

    /// Whether some lane of `mask` is set: its two words OR-ed. (`any(_:)`
    /// was a call per mask, out of line, to a lane-by-lane `min()`.)
    @inline(__always)
    private static func isAnySet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        // Same size: the mask is sixteen lanes of 0 or -1.
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    private typealias Lanes = SIMD16<UInt8>

    /// The lanes where each kind was seen, gathered over the vectors and
    /// reduced once. The constants are typed vectors: against a scalar (or
    /// an inferred type) the compiler compares lane by lane.
    private struct Flags {
        var nonASCII = SIMDMask<SIMD16<Int8>>(repeating: false)
        var spaceOrControl = SIMDMask<SIMD16<Int8>>(repeating: false)

        @inline(__always)
        mutating func add(_ lanes: Lanes) {
            let high: Lanes = Lanes(repeating: 0x80), space: Lanes = Lanes(repeating: 0x20)
            let delete: Lanes = Lanes(repeating: 0x7F)
            nonASCII = nonASCII .| (lanes .>= high)
            spaceOrControl = spaceOrControl .| (lanes .<= space) .| (lanes .== delete)
        }
    }

    /// Fewer than sixteen bytes: two overlapping words, two overlapping
    /// half-words as one word, or (under four) byte by byte.
    private static func classifyShort(_ raw: UnsafeRawPointer, count: Int) -> (nonASCII: Bool, spaceOrControl: Bool) {
        if count >= 8 {
            let first = classify(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)))
            let last = classify(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)))
            return (first.nonASCII || last.nonASCII, first.spaceOrControl || last.spaceOrControl)
        }
        if count >= 4 {
            let low = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return classify(low | high << 32)
        }
        var kinds = (nonASCII: false, spaceOrControl: false)
        for index in 0..<count {
            let byte = raw.load(fromByteOffset: index, as: UInt8.self)
            if byte >= 0x80 { kinds.nonASCII = true }
            if byte <= 0x20 || byte == 0x7F { kinds.spaceOrControl = true }
        }
        return kinds
    }

    /// One word: the classic SWAR tests, exact about whether any byte of
    /// the word matches (a borrow only starts at a byte that does).
    @inline(__always)
    private static func classify(_ word: UInt64) -> (nonASCII: Bool, spaceOrControl: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let delete = word ^ (ones &* 0x7F)
        let spaceOrControl = ((word &- ones &* 0x21) & ~word & highs) | ((delete &- ones) & ~delete & highs)
        return (word & highs != 0, spaceOrControl != 0)
    }
}
