/// Strings, read as `JSONParser.parseString` reads them: RFC 3629 UTF-8,
/// no raw control characters, escapes decoded (a surrogate pair to its
/// scalar). A lone surrogate or bad UTF-8 fails as `.utf8`, a bad escape
/// or a raw control character as `.syntax`, in the parser's words.
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

        /// The number of Unicode scalars (what JSON Schema's `maxLength`
        /// counts): the bytes that do not continue a scalar.
        var scalarCount: Int {
            if isASCII { return utf8.count }
            var count = 0
            for byte in utf8 where byte & 0xC0 != 0x80 { count += 1 }
            return count
        }

        /// The string.
        var string: String {
            // ASCII that fits in a small string is copied in without a second validation.
            guard isASCII, utf8.count <= 15 else { return String(decoding: utf8, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: utf8.count) { $0.initialize(fromContentsOf: utf8) }
        }

        /// `a + separator + b` as one string, copied once from the bytes.
        static func joined(_ a: Text, _ separator: UInt8, _ b: Text) -> String {
            let count = a.utf8Count + 1 + b.utf8Count
            return String(unsafeUninitializedCapacity: count) { buffer in
                guard let out = buffer.baseAddress else { return 0 }
                if let first = a.utf8.baseAddress { out.update(from: first, count: a.utf8Count) }
                out[a.utf8Count] = separator
                if let second = b.utf8.baseAddress { (out + a.utf8Count + 1).update(from: second, count: b.utf8Count) }
                return count
            }
        }

        /// The bytes of a text of exactly two bytes, or nil.
        var twoBytes: (UInt8, UInt8)? {
            utf8.count == 2 ? (utf8[0], utf8[1]) : nil
        }

        /// Calls `body` with the UTF-8 bytes, as a span: the string rules
        /// read them without a pointer.
        @inline(__always)
        func withUTF8<Result>(_ body: (Span<UInt8>) -> Result) -> Result {
            body(utf8.span)
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

    /// The string at `position` (its opening quote), checked as
    /// `JSONParser` checks it.
    @inline(__always)
    mutating func text() throws(Failure) -> Text {
        position += 1
        let start = position
        var isASCII = true
        while true {
            position = JSONEscaping.firstToEscapeOrNonASCII(in: input, from: position)
            guard position < input.count else { throw syntaxError("unterminated string") }
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let text = Text(utf8: UnsafeBufferPointer(rebasing: input[start..<position]), isASCII: isASCII)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try decodedText(from: start, isASCII: isASCII) }
            if byte < 0x20 { throw syntaxError("control character in a string must be escaped") }
            try skipMultibyteScalar()
            isASCII = false
        }
    }

    /// The rest of `text()` from the first escape (at `position`) of the
    /// string whose first byte is at `start`.
    @inline(never)
    private mutating func decodedText(from start: Int, isASCII: Bool) throws(Failure) -> Text {
        var isASCII = isASCII
        if decoded == nil { decoded = DecodedStrings(capacity: input.count) }
        guard let out = decoded?.bytes.baseAddress, let source = input.baseAddress else { throw syntaxError("unterminated string") }
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
                let scalar = try unescape()
                if scalar.value >= 0x80 { isASCII = false }
                for unit in UTF8.encode(scalar)! {
                    out[end] = unit
                    end += 1
                }
            } else if byte < 0x20 {
                throw syntaxError("control character in a string must be escaped")
            } else if byte < 0x80 {
                out[end] = byte
                end += 1
                position += 1
            } else {
                let scalarStart = position
                try skipMultibyteScalar()
                isASCII = false
                (out + end).update(from: source + scalarStart, count: position - scalarStart)
                end += position - scalarStart
            }
        }
        throw syntaxError("unterminated string")
    }

    /// The scalar of the escape at `position` (its backslash), stepped over.
    private mutating func unescape() throws(Failure) -> Unicode.Scalar {
        position += 1
        guard position < input.count else { throw syntaxError("unterminated escape") }
        let byte = input[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"),
                      input[position + 1] == UInt8(ascii: "u") else { throw loneSurrogate() }
                position += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw loneSurrogate()
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw utf8Error("escape is not a Unicode scalar") }
            return unicode
        default:
            throw syntaxError("unknown escape sequence")
        }
    }

    private func loneSurrogate() -> Failure {
        utf8Error("a lone UTF-16 surrogate escape is not a character")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard input.count - position >= 4 else { throw syntaxError("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONTextRules.hexDigit(input[position]) else { throw syntaxError("bad hex digit in \\u escape") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence at `position`.
    private mutating func skipMultibyteScalar() throws(Failure) {
        switch JSONTextRules.multibyteScalar(in: input, at: position) {
        case let .valid(length): position += length
        case .invalidLead: throw utf8Error("invalid UTF-8 byte 0x\(String(input[position], radix: 16))")
        case .truncated: throw utf8Error("truncated UTF-8 sequence")
        case .invalidSequence: throw utf8Error("invalid UTF-8 sequence")
        }
    }
}
