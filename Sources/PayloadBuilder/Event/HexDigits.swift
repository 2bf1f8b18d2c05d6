/// Whether a run of bytes is all hex digits (0-9, a-f, A-F), eight bytes at
/// a time: the APNs token rule, without a test per byte.
enum HexDigits {
    /// True when every byte of `bytes` is a hex digit (true when empty).
    static func all(_ bytes: Span<UInt8>) -> Bool {
        let count = bytes.count
        guard count >= 8 else {
            for index in bytes.indices where !isHexDigit(bytes[index]) { return false }
            return true
        }
        var index = 0
        while count - index >= 8 {
            guard wordIsHex(bytes.littleEndianWord(at: index)) else { return false }
            index += 8
        }
        // The rest in one word ending at the last byte (it overlaps bytes
        // already found to be digits).
        return index == count || wordIsHex(bytes.littleEndianWord(at: count - 8))
    }

    /// The byte rule `all` must agree with.
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// Every byte of `word` a hex digit. With no byte of 0x80 or above, each
    /// byte `x` plus a constant below 0x81 stays within its byte (no carry
    /// into the next), and its high bit says `x >= lo` (`x + 0x80 - lo`) or
    /// `x > hi` (`x + 0x7F - hi`). Setting 0x20 folds A-F onto a-f and keeps
    /// 0-9; it would also fold 0x10-0x19 onto 0-9, so bytes below 0x20 are
    /// refused apart.
    @inline(__always)
    private static func wordIsHex(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard word & highs == 0 else { return false }
        let folded = word | ones &* 0x20
        let atLeastZero = folded &+ ones &* (0x80 - 0x30)
        let aboveNine = folded &+ ones &* (0x7F - 0x39)
        let atLeastA = folded &+ ones &* (0x80 - 0x61)
        let aboveF = folded &+ ones &* (0x7F - 0x66)
        let notControl = word &+ ones &* (0x80 - 0x20)
        let digit = atLeastZero & ~aboveNine
        let letter = atLeastA & ~aboveF
        return (digit | letter) & notControl & highs == highs
    }
}
