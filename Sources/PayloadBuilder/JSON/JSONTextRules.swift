/// The byte-level rules a JSON string follows here, shared by the parser
/// (which reports what broke them) and the scanner of the decoder's fast
/// path (which steps aside): one copy of each, so the two cannot drift.
enum JSONTextRules {
    /// What the bytes at a non-ASCII lead byte are (RFC 3629 table).
    enum MultibyteScalar: Equatable {
        /// A well-formed sequence of this many bytes.
        case valid(length: Int)
        /// A byte that cannot start a sequence.
        case invalidLead
        /// The input ends inside the sequence.
        case truncated
        /// A continuation byte out of range.
        case invalidSequence
    }

    /// Checks the multi-byte UTF-8 sequence starting at `position`.
    /// Inlined into each reader's string loop (a call per non-ASCII
    /// scalar would cost more than the check).
    @inline(__always)
    static func multibyteScalar(in input: Span<UInt8>, at position: Int) -> MultibyteScalar {
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch input[position] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        default: return .invalidLead
        }
        guard position + length <= input.count else { return .truncated }
        let second = input[position + 1]
        guard second >= secondLow, second <= secondHigh else { return .invalidSequence }
        for offset in 2..<max(2, length) where input[position + offset] & 0xC0 != 0x80 { return .invalidSequence }
        return .valid(length: length)
    }

    /// The value of one hex digit of a `\u` escape, or nil.
    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
