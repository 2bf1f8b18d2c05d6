/// Well-formed UTF-8 as Unicode defines it (Table 3-7), the rule
/// `String(validating:as:)` applies: no overlong forms, no surrogates
/// (U+D800–U+DFFF), nothing above U+10FFFF, no stray continuation bytes.
enum StrictUTF8 {
    /// The length of the well-formed multi-byte sequence whose lead byte
    /// (0x80 or above) is at `index`, or `nil` when it is not one.
    static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let length: Int
        // The second byte's range depends on the lead; the others are 80–BF.
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch bytes[index] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; second = 0x80...0x8F
        default: return nil
        }
        guard bytes.count - index >= length, second.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
    }
}
