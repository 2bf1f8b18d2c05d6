/// Strings, read as `JSONParser.parseString` reads them: RFC 3629 UTF-8,
/// no raw control characters, escapes decoded (a surrogate pair to its
/// scalar). A lone surrogate, a bad escape or bad UTF-8 gives nil: the
/// parser's to report.
extension JSONScanner {
    /// A string the scanner read, as well-formed UTF-8: a part of the input
    /// when it holds no escape (the usual string), else its decoded bytes in
    /// the scanner's `DecodedStrings`. Plain bytes (copying one retains
    /// nothing); valid while the scanner lives, and no `String` made yet.
    struct Text {
        let utf8: UnsafeBufferPointer<UInt8>
        /// No byte of 0x80 and above.
        let isASCII: Bool

        /// The number of UTF-8 bytes.
        var utf8Count: Int { utf8.count }

        /// The string.
        var string: String {
            // ASCII that fits in a small string is copied in without a second validation.
            guard isASCII, utf8.count <= 15 else { return String(decoding: utf8, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: utf8.count) { $0.initialize(fromContentsOf: utf8) }
        }

        /// Calls `body` with the UTF-8 bytes.
        @inline(__always)
        func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            body(utf8)
        }
    }

    /// Where strings with escapes are decoded: each at the offset of its
    /// first byte in the input. A string decodes to at most as many bytes
    /// as it is written with, so the decoded strings never overlap and all
    /// stay valid while the scanner lives. Made at the first escape only.
    final class DecodedStrings {
        let bytes: UnsafeMutableBufferPointer<UInt8>

        init(capacity: Int) {
            bytes = .allocate(capacity: capacity)
        }

        deinit {
            bytes.deallocate()
        }
    }

    /// A string or `null` at `position`: the string, `.some(nil)` for
    /// null, nil for anything else.
    mutating func textOrNull() -> Text?? {
        guard position < input.count else { return nil }
        if input[position] == UInt8(ascii: "n") { return null() ? .some(nil) : nil }
        guard let text = text() else { return nil }
        return .some(text)
    }

    /// The string at `position` (its opening quote), or nil.
    mutating func string() -> String? {
        text()?.string
    }

    /// The string at `position` (its opening quote), or nil when it is not
    /// a well-formed string.
    @inline(__always)
    mutating func text() -> Text? {
        guard position < input.count, input[position] == UInt8(ascii: "\"") else { return nil }
        position += 1
        let start = position
        var isASCII = true
        while position < input.count {
            position = JSONEscaping.firstToEscapeOrNonASCII(in: input, from: position)
            guard position < input.count else { return nil }
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let text = Text(utf8: UnsafeBufferPointer(rebasing: input[start..<position]), isASCII: isASCII)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return decodedText(from: start, isASCII: isASCII) }
            if byte < 0x80 || !skipMultibyteScalar() { return nil }
            isASCII = false
        }
        return nil
    }

    /// The rest of `text()` from the first escape (at `position`) of the
    /// string whose first byte is at `start`.
    @inline(never)
    private mutating func decodedText(from start: Int, isASCII: Bool) -> Text? {
        var isASCII = isASCII
        if decoded == nil { decoded = DecodedStrings(capacity: input.count) }
        guard let out = decoded?.bytes.baseAddress, let source = input.baseAddress else { return nil }
        // The bytes before the first escape, as they are.
        (out + start).update(from: source + start, count: position - start)
        var end = position
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return Text(utf8: UnsafeBufferPointer(start: out + start, count: end - start), isASCII: isASCII)
            }
            if byte == UInt8(ascii: "\\") {
                guard let scalar = unescape() else { return nil }
                if scalar.value >= 0x80 { isASCII = false }
                for unit in UTF8.encode(scalar)! {
                    out[end] = unit
                    end += 1
                }
            } else if byte < 0x20 {
                return nil
            } else if byte < 0x80 {
                out[end] = byte
                end += 1
                position += 1
            } else {
                let scalarStart = position
                guard skipMultibyteScalar() else { return nil }
                isASCII = false
                (out + end).update(from: source + scalarStart, count: position - scalarStart)
                end += position - scalarStart
            }
        }
        return nil
    }

    /// The scalar of the escape at `position` (its backslash), stepped over.
    private mutating func unescape() -> Unicode.Scalar? {
        guard position + 1 < input.count else { return nil }
        let byte = input[position + 1]
        position += 2
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard var scalar = hex4() else { return nil }
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"),
                      input[position + 1] == UInt8(ascii: "u") else { return nil }
                position += 2
                guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                return nil
            }
            return Unicode.Scalar(scalar)
        default:
            return nil
        }
    }

    private mutating func hex4() -> UInt32? {
        guard input.count - position >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONTextRules.hexDigit(input[position]) else { return nil }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence at `position`.
    private mutating func skipMultibyteScalar() -> Bool {
        guard case let .valid(length) = JSONTextRules.multibyteScalar(in: input, at: position) else { return false }
        position += length
        return true
    }
}
