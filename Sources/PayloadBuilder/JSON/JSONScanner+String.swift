/// Strings, read as `JSONParser.parseString` reads them: RFC 3629 UTF-8,
/// no raw control characters, escapes decoded (a surrogate pair to its
/// scalar). A lone surrogate, a bad escape or bad UTF-8 gives nil: the
/// parser's to report.
extension JSONScanner {
    /// A string the scanner read, in well-formed UTF-8: the bytes of the
    /// input when it holds no escape (the usual string: nothing copied, no
    /// `String` made yet), or the decoded `String` when it does.
    enum Text {
        /// A part of the input (which the scanner borrows), with whether it is all ASCII.
        case raw(UnsafeBufferPointer<UInt8>, isASCII: Bool)
        /// A string with escapes, decoded.
        case decoded(String)

        /// The number of UTF-8 bytes.
        var utf8Count: Int {
            switch self {
            case let .raw(bytes, _): bytes.count
            case let .decoded(string): string.utf8.count
            }
        }

        /// The string.
        var string: String {
            switch self {
            case let .raw(bytes, _): String(decoding: bytes, as: UTF8.self)
            case let .decoded(string): string
            }
        }

        /// Calls `body` with the UTF-8 bytes.
        func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            switch self {
            case let .raw(bytes, _):
                return body(bytes)
            case let .decoded(string):
                var copy = string
                return copy.withUTF8(body)
            }
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

    /// The string at `position` (its opening quote), as bytes of the input
    /// when it holds no escape; nil when it is not a well-formed string.
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
                let text = Text.raw(UnsafeBufferPointer(rebasing: input[start..<position]), isASCII: isASCII)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x80 || !skipMultibyteScalar() { return nil }
            isASCII = false
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<position]))
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return .decoded(String(decoding: scratch, as: UTF8.self))
            }
            if byte == UInt8(ascii: "\\") {
                guard unescape() else { return nil }
            } else if byte < 0x20 {
                return nil
            } else if byte < 0x80 {
                scratch.append(byte)
                position += 1
            } else {
                let scalarStart = position
                guard skipMultibyteScalar() else { return nil }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[scalarStart..<position]))
            }
        }
        return nil
    }

    /// Appends the escape at `position` (its backslash) to `scratch`.
    private mutating func unescape() -> Bool {
        guard position + 1 < input.count else { return false }
        let byte = input[position + 1]
        position += 2
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            guard var scalar = hex4() else { return false }
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"),
                      input[position + 1] == UInt8(ascii: "u") else { return false }
                position += 2
                guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return false }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                return false
            }
            guard let unicode = Unicode.Scalar(scalar), let encoded = UTF8.encode(unicode) else { return false }
            scratch.append(contentsOf: encoded)
        default:
            return false
        }
        return true
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
