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
    static func classify(_ bytes: Span<UInt8>) -> (nonASCII: Bool, spaceOrControl: Bool) {
        let count = bytes.count
        guard count >= 16 else { return classifyShort(bytes) }
        var seen = Flags()
        var index = 0
        while index + 16 <= count {
            seen.add(bytes.lanes(at: index))
            index += 16
        }
        if index < count { seen.add(bytes.lanes(at: count - 16)) }
        return seen.kinds
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

        /// Whether some lane of each mask is set: the masks as bits 0 and 1
        /// of each lane, OR-ed over the lanes.
        @inline(__always)
        var kinds: (nonASCII: Bool, spaceOrControl: Bool) {
            let bits = PrintableASCII.orOfLanes(Lanes().replacing(with: 1, where: nonASCII) | Lanes().replacing(with: 2, where: spaceOrControl))
            return (bits & 1 != 0, bits & 2 != 0)
        }
    }

    /// The OR of the sixteen lanes, folded in halves (a few shuffles; `any(_:)`
    /// is a call per mask to a lane-by-lane `min()`). Out of line: inlined,
    /// the vectorizer unpicks the folds into a byte-by-byte merge.
    @inline(never)
    private static func orOfLanes(_ lanes: Lanes) -> UInt8 {
        let eight = lanes.lowHalf | lanes.highHalf
        let four = eight.lowHalf | eight.highHalf
        let two = four.lowHalf | four.highHalf
        return two[0] | two[1]
    }

    /// Fewer than sixteen bytes: two overlapping words, two overlapping
    /// half-words as one word, or (under four) byte by byte.
    private static func classifyShort(_ bytes: Span<UInt8>) -> (nonASCII: Bool, spaceOrControl: Bool) {
        let count = bytes.count
        if count >= 8 {
            let first = classify(bytes.littleEndianWord(at: 0))
            let last = classify(bytes.littleEndianWord(at: count - 8))
            return (first.nonASCII || last.nonASCII, first.spaceOrControl || last.spaceOrControl)
        }
        if count >= 4 {
            let low = UInt64(bytes.littleEndianHalfWord(at: 0))
            let high = UInt64(bytes.littleEndianHalfWord(at: count - 4))
            return classify(low | high << 32)
        }
        var kinds = (nonASCII: false, spaceOrControl: false)
        for index in bytes.indices {
            let byte = bytes[index]
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
