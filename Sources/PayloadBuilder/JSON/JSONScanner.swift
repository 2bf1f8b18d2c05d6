/// Reads a JSON text straight from its bytes, one token at a time, for a
/// reader that builds its values as it goes and wants no `JSONValue` tree
/// (the event reader).
///
/// It accepts every RFC 8259 text `JSONParser` accepts (keys and strings
/// with escapes, numbers with fractions and exponents, integers of any
/// length, any whitespace) and refuses the rest with the parser's words
/// (`Failure`): the caller names the field. What a value must be is the
/// caller's to say: `kind()` tells which value comes next, before it is read.
/// Borrows `input` for its lifetime.
struct JSONScanner {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Strings with escapes, decoded (JSONScanner+String.swift); nil until the first.
    var decoded: DecodedStrings?
    /// The key `nextKey` read last, as written once decoded: an error names it.
    private(set) var key = Text(utf8: UnsafeBufferPointer(start: nil, count: 0), isASCII: true)

    init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
    }

    /// Calls `body` with a scanner at the start of `bytes`, valid only
    /// inside it (it borrows the bytes).
    static func scanning<Result, Failure: Error>(_ bytes: [UInt8],
                                                 _ body: (JSONScanner) throws(Failure) -> Result) throws(Failure) -> Result {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try body(JSONScanner(buffer)) }
    }

    /// Why the text is not JSON (or its strings not UTF-8), in the words
    /// of `JSONParser`, with the byte offset where it was found.
    struct Failure: Error {
        enum Kind {
            /// Not JSON: answered `invalid_json` for the whole body.
            case syntax
            /// A string that is not Unicode text: `invalid_utf8`, naming the field it is in.
            case utf8
        }

        let kind: Kind
        let message: String
    }

    /// The kind of the value that comes next.
    enum Kind {
        case object, array, string, number, boolean, null

        /// The name an error gives a value of this kind (as `JSONValue.typeName`).
        var name: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .boolean: "a boolean"
            case .null: "null"
            }
        }
    }

    /// Where an object or array being read is: before its first member or
    /// element, or after one.
    struct Container {
        fileprivate var started = false
    }

    // MARK: structure

    /// The kind of the value at the next byte (whitespace skipped), told by
    /// that byte: the value itself is checked when it is read.
    @inline(__always)
    mutating func kind() throws(Failure) -> Kind {
        skipWhitespace()
        guard position < input.count else { throw syntaxError("unexpected end of input") }
        switch input[position] {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .boolean
        case UInt8(ascii: "n"): return .null
        default: throw syntaxError("unexpected character")
        }
    }

    /// Steps over the `{` or `[` that `kind()` found.
    mutating func enter(_ container: inout Container) {
        container = Container()
        position += 1
    }

    /// Moves to the next member of an object: past the `,` (or nothing,
    /// first), the key and the `:` after it, to the value. Answers the key
    /// (`key` holds it as written), or nil past the closing `}`.
    @inline(__always)
    mutating func nextKey(_ object: inout Container) throws(Failure) -> KeyName? {
        guard try nextItem(&object, closing: UInt8(ascii: "}"), expected: "expected ',' or '}'") else { return nil }
        guard position < input.count, input[position] == UInt8(ascii: "\"") else { throw syntaxError("expected a string key") }
        let start = position + 1
        // The usual key: plain ASCII of at most 15 bytes, its closing quote
        // found in the two words after the opening one.
        if input.count - start >= 16, let base = input.baseAddress {
            let raw = UnsafeRawPointer(base + start)
            let low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            let lowStops = Self.keyStops(low)
            let length = lowStops != 0 ? lowStops.trailingZeroBitCount >> 3 : 8 + Self.keyStops(high).trailingZeroBitCount >> 3
            if length < 16, input[start + length] == UInt8(ascii: "\"") {
                key = Text(utf8: UnsafeBufferPointer(start: base + start, count: length), isASCII: true)
                position = start + length + 1
                try afterKey()
                return KeyName(low: low, high: high, count: length)
            }
        }
        return try nextKeyRead()
    }

    /// The rest of `nextKey` for any other key: read as a string.
    @inline(never)
    private mutating func nextKeyRead() throws(Failure) -> KeyName {
        key = try text()
        try afterKey()
        return KeyName(key.utf8)
    }

    /// Past the `:` after a key and the whitespace after it.
    @inline(__always)
    private mutating func afterKey() throws(Failure) {
        skipWhitespace()
        guard position < input.count, input[position] == UInt8(ascii: ":") else { throw syntaxError("expected ':' after a key") }
        position += 1
        skipWhitespace()
    }

    /// The high bit of each byte of `word` that ends a plain key (a quote,
    /// a backslash, a control character, a byte of 0x80 and above): exact
    /// for the lowest one, since a borrow only starts at a byte that is one.
    @inline(__always)
    static func keyStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroInQuote = (quote &- ones) & ~quote
        let zeroInBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroInQuote | zeroInBackslash | control | word) & (ones &* 0x80)
    }

    /// Moves to the next element of an array: true when one follows, false
    /// past the closing `]`.
    @inline(__always)
    mutating func nextElement(_ array: inout Container) throws(Failure) -> Bool {
        try nextItem(&array, closing: UInt8(ascii: "]"), expected: "expected ',' or ']'")
    }

    /// Past the separator before the next item, at its first byte; false
    /// past `closing`.
    @inline(__always)
    private mutating func nextItem(_ container: inout Container, closing: UInt8,
                                   expected: @autoclosure () -> String) throws(Failure) -> Bool {
        skipWhitespace()
        guard position < input.count else { throw syntaxError(container.started ? expected() : "unexpected end of input") }
        let byte = input[position]
        if byte == closing {
            position += 1
            return false
        }
        if container.started {
            guard byte == UInt8(ascii: ",") else { throw syntaxError(expected()) }
            position += 1
            skipWhitespace()
        }
        container.started = true
        return true
    }

    /// Checks that only whitespace is left.
    mutating func end() throws(Failure) {
        skipWhitespace()
        guard position == input.count else { throw syntaxError("unexpected data after the JSON value") }
    }

    // MARK: literals

    /// `null`, stepped over: true; false for another value.
    @inline(__always)
    mutating func null() throws(Failure) -> Bool {
        guard position < input.count, input[position] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// `true` or `false`, at the byte where `kind()` found a boolean.
    mutating func bool() throws(Failure) -> Bool {
        if input[position] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard input.count - position >= count else { throw syntaxError("unexpected end of input") }
        let matches = word.withUTF8Buffer { expected in
            for offset in 0..<count where input[position + offset] != expected[offset] { return false }
            return true
        }
        guard matches else { throw syntaxError("unexpected character") }
        position += count
    }

    // MARK: helpers

    mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Whether the value at the next byte is a string: the usual answer of
    /// `kind()` where a member's value must be one, without telling the
    /// others apart. `nextKey` leaves the scanner at the value's first byte
    /// (whitespace skipped), so there is none to skip.
    @inline(__always)
    func atString() -> Bool {
        position < input.count && input[position] == UInt8(ascii: "\"")
    }

    /// Whether the value at the next byte is a number (`atString` for numbers).
    @inline(__always)
    func atNumber() -> Bool {
        guard position < input.count else { return false }
        let byte = input[position]
        return byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// A syntax failure at the current position.
    @inline(never)
    func syntaxError(_ what: String) -> Failure {
        Failure(kind: .syntax, message: "\(what) at byte \(position)")
    }

    /// A UTF-8 failure at the current position.
    @inline(never)
    func utf8Error(_ what: String) -> Failure {
        Failure(kind: .utf8, message: "\(what) at byte \(position)")
    }
}
