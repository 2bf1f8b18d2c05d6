/// Which kinds of byte a run of bytes holds, eight bytes at a time: what
/// the URL and FCM-token rules ask (any byte of 0x80 and above; any space,
/// control or DEL), without looking at the bytes one by one.
enum PrintableASCII {
    /// Whether `bytes` hold a byte of 0x80 or above (not ASCII), and whether
    /// they hold a byte of 0x20 or below or 0x7F (space, control, DEL).
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> (nonASCII: Bool, spaceOrControl: Bool) {
        guard let base = bytes.baseAddress else { return (false, false) }
        let count = bytes.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var nonASCII: UInt64 = 0, spaceOrControl: UInt64 = 0
        var index = 0
        // The classic SWAR tests are exact about whether any byte of a word
        // matches: a borrow only starts at a byte that does.
        while count - index >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let delete = word ^ (ones &* 0x7F)
            nonASCII |= word & highs
            spaceOrControl |= ((word &- ones &* 0x21) & ~word & highs) | ((delete &- ones) & ~delete & highs)
            index += 8
        }
        var tail = (nonASCII: nonASCII != 0, spaceOrControl: spaceOrControl != 0)
        while index < count {
            let byte = base[index]
            if byte >= 0x80 { tail.nonASCII = true }
            if byte <= 0x20 || byte == 0x7F { tail.spaceOrControl = true }
            index += 1
        }
        return tail
    }
}
