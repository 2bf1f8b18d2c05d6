/// Reads JSON tokens straight from the bytes, for fast paths that build no
/// `JSONValue` tree.
///
/// Each token it reads is one `JSONParser` accepts, with the same value
/// (strings validated as UTF-8 and unescaped the same way, integers of at
/// most 18 characters); anything else, valid or not, gives nil or `false`
/// and never an error, so that the caller can step aside and let the parser
/// read the body and word the error. Borrows `input` for its lifetime.
struct JSONScanner {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Strings with escapes, decoded (JSONScanner+String.swift); nil until the first.
    var decoded: DecodedStrings?

    init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
    }

    /// Where an object or array being read is: before its first member or
    /// element, or after one.
    struct Container {
        fileprivate var started = false
    }

    // MARK: structure

    /// Steps over `opening` (`{` or `[`), after whitespace.
    mutating func enter(_ opening: UInt8, _ container: inout Container) -> Bool {
        container = Container()
        return consume(opening)
    }

    /// Moves to the next member of an object: past the `,` (or nothing,
    /// first) and the key, and past the `:` after it; returns the key's
    /// bytes, which hold no escape. Nil at the closing `}` (then `ended` is
    /// true) and for anything else (then `ended` is false).
    mutating func nextKey(_ object: inout Container, ended: inout Bool) -> UnsafeBufferPointer<UInt8>? {
        ended = false
        guard nextItem(&object, closing: UInt8(ascii: "}"), ended: &ended) else { return nil }
        guard position < input.count, input[position] == UInt8(ascii: "\"") else { return nil }
        return nextKey(from: position + 1)
    }

    /// The key whose first byte is at `start`, and past the `:` after it.
    private mutating func nextKey(from start: Int) -> UnsafeBufferPointer<UInt8>? {
        // The first quote, backslash, control or non-ASCII byte, a word at a
        // time: the key ends there when it is the closing quote.
        let index = JSONEscaping.firstToEscapeOrNonASCII(in: input, from: start)
        guard index < input.count, input[index] == UInt8(ascii: "\"") else { return nil }
        position = index + 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return UnsafeBufferPointer(rebasing: input[start..<index])
    }

    /// `nextKey`, answering the key as a `KeyName`; nil also for a key of
    /// 16 bytes or more (longer than any member name). When 16 bytes follow
    /// the key's opening quote, its closing quote is found in those two
    /// words, without a scan.
    @inline(__always)
    mutating func nextKeyName(_ object: inout Container, ended: inout Bool) -> KeyName? {
        ended = false
        guard nextItem(&object, closing: UInt8(ascii: "}"), ended: &ended) else { return nil }
        guard position < input.count, input[position] == UInt8(ascii: "\""), let base = input.baseAddress else { return nil }
        let start = position + 1
        guard input.count - start >= 16 else {
            guard let key = nextKey(from: start), key.count < 16 else { return nil }
            return KeyName(key, in: input)
        }
        let raw = UnsafeRawPointer(base + start)
        let low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let length: Int
        let lowStops = Self.keyStops(low)
        if lowStops != 0 {
            length = lowStops.trailingZeroBitCount >> 3
        } else {
            let highStops = Self.keyStops(high)
            guard highStops != 0 else { return nil }
            length = 8 + highStops.trailingZeroBitCount >> 3
        }
        // The first byte that ends a plain key must be its closing quote.
        guard input[start + length] == UInt8(ascii: "\"") else { return nil }
        position = start + length + 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return KeyName(low: low, high: high, count: length)
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

    /// Moves to the next member of an object whose keys may be any string
    /// (decoded), like `nextKey`.
    mutating func nextStringKey(_ object: inout Container, ended: inout Bool) -> String? {
        ended = false
        guard nextItem(&object, closing: UInt8(ascii: "}"), ended: &ended),
              let key = string(), consume(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return key
    }

    /// Moves to the next element of an array: true when one follows, false
    /// at the closing `]` (then `ended` is true) and for anything else.
    mutating func nextElement(_ array: inout Container, ended: inout Bool) -> Bool {
        ended = false
        return nextItem(&array, closing: UInt8(ascii: "]"), ended: &ended)
    }

    /// Past the separator before the next item, at its first byte; false at
    /// `closing` (stepped over, `ended` set) or at anything unexpected.
    private mutating func nextItem(_ container: inout Container, closing: UInt8, ended: inout Bool) -> Bool {
        skipWhitespace()
        guard position < input.count else { return false }
        let byte = input[position]
        if byte == closing {
            position += 1
            ended = true
            return false
        }
        if container.started {
            guard byte == UInt8(ascii: ",") else { return false }
            position += 1
            skipWhitespace()
        }
        container.started = true
        return position < input.count
    }

    /// True when only whitespace is left.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return position == input.count
    }

    /// The next byte (whitespace skipped), or nil at the end.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < input.count ? input[position] : nil
    }

    // MARK: scalars

    /// `null`.
    @inline(__always)
    mutating func null() -> Bool {
        position < input.count && input[position] == UInt8(ascii: "n") && literal("null")
    }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        guard position < input.count else { return nil }
        switch input[position] {
        case UInt8(ascii: "t"): return literal("true") ? true : nil
        case UInt8(ascii: "f"): return literal("false") ? false : nil
        default: return nil
        }
    }

    /// An integer without fraction or exponent, of at most 18 characters (a
    /// minus sign included), which `JSONParser` reads as this `Int64`.
    mutating func integer() -> Int64? {
        var index = position
        let negative = index < input.count && input[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        var value: Int64 = 0
        while index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[index]) {
            value = value &* 10 &+ Int64(input[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - digitsStart
        guard digits >= 1, index - position <= 18, digits == 1 || input[digitsStart] != UInt8(ascii: "0") else { return nil }
        if index < input.count {
            switch input[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        position = index
        return negative ? -value : value
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard input.count - position >= count else { return false }
        // Most calls ask whether a string is null: the first byte answers.
        guard input[position] == word.utf8Start.pointee else { return false }
        let matches = word.withUTF8Buffer { expected in
            for offset in 0..<count where input[position + offset] != expected[offset] { return false }
            return true
        }
        if matches { position += count }
        return matches
    }

    // MARK: helpers

    /// Steps over `byte`, after whitespace.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < input.count, input[position] == byte else { return false }
        position += 1
        return true
    }

    mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }
}
