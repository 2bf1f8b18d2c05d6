/// Strings: the common case (no escapes) is checked in place and handed
/// over as a slice of the input; a string with escapes is decoded into
/// `unescaped` first.
extension StrictJSONParser {
    /// Reads the string whose opening quote is at `index` and hands its
    /// content (valid UTF-8, escapes decoded) to `make`; `nil` when the
    /// string is malformed or unterminated.
    mutating func readString<Result>(_ make: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        index += 1
        let start = index
        skipPlainASCII()
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return make(content)
            case UInt8(ascii: "\\"):
                return readEscapedString(from: start, make)
            case 0x20..<0x80:
                index += 1
            case ..<0x20:
                return nil
            default:
                guard let length = StrictUTF8.sequenceLength(in: bytes, at: index) else { return nil }
                index += length
                skipPlainASCII()
            }
        }
        return nil
    }

    /// Steps over the plain bytes at `index` (printable ASCII other than
    /// `"` and `\\`, which `readString` would take one at a time) eight at a
    /// time, stopping at the first word holding anything else. Word tests
    /// from "Bit Twiddling Hacks" (exact for whether some byte matches):
    /// a byte below 0x20 (`(x - 0x20…) & ~x & 0x80…`, valid once every byte
    /// is below 0x80), a `"` or a `\\` (a zero byte in `x ^ 0x22…`,
    /// `x ^ 0x5C…`).
    private mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var position = index
        let end = bytes.count
        while end - position >= 8 {
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let control = (word &- ones &* 0x20) & ~word
            let quoteFound = (quote &- ones) & ~quote
            let backslashFound = (backslash &- ones) & ~backslash
            guard (word | control | quoteFound | backslashFound) & highBits == 0 else { break }
            position += 8
        }
        index = position
    }

    /// Continues `readString` at the first backslash, decoding into `unescaped`.
    private mutating func readEscapedString<Result>(
        from start: Int, _ make: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result? {
        unescaped.removeAll(keepingCapacity: true)
        unescaped.append(contentsOf: bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return unescaped.withUnsafeBufferPointer(make)
            case UInt8(ascii: "\\"):
                guard appendEscape() else { return nil }
            case 0x20..<0x80:
                unescaped.append(byte)
                index += 1
            case ..<0x20:
                return nil
            default:
                guard let length = StrictUTF8.sequenceLength(in: bytes, at: index) else { return nil }
                unescaped.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
        return nil
    }

    /// Decodes the escape whose backslash is at `index` onto `unescaped`.
    private mutating func appendEscape() -> Bool {
        index += 1
        guard index < bytes.count else { return false }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            guard let scalar = parseUnicodeEscape() else { return false }
            UTF8.encode(scalar) { unescaped.append($0) }
        default: return false
        }
        return true
    }

    /// Parses the hex digits after `\u`, joining a surrogate pair when
    /// present; a lone surrogate is malformed.
    private mutating func parseUnicodeEscape() -> Unicode.Scalar? {
        guard let high = parseHex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = parseHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func parseHex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
