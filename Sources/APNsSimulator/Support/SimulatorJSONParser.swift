/// A strict RFC 8259 parser over UTF-8 bytes: no comments, no trailing
/// commas, no leading zeros, no unescaped control characters, valid UTF-8,
/// and nothing but whitespace after the value. Nesting is capped at 64.
///
/// Returns `nil` for any malformed input; the simulator only needs to know
/// *that* a payload or token part is bad, not where.
enum SimulatorJSONParser {
    /// Parses a complete JSON text into the unordered representation.
    static func parse(_ bytes: [UInt8]) -> SimulatorJSON? {
        StrictJSONParser<SimulatorJSON>.parse(bytes)
    }

    /// Parses a complete JSON text keeping object members in written order.
    static func parseOrdered(_ bytes: [UInt8]) -> OrderedJSON? {
        StrictJSONParser<OrderedJSON>.parse(bytes)
    }
}

/// The parser behind `SimulatorJSONParser`, generic over what it builds
/// (specialized per `Value` in the module's optimized build).
///
/// It reads an `UnsafeBufferPointer` that lives only inside `parse`; every
/// read is preceded by a check of `index` against `bytes.count`.
struct StrictJSONParser<Value: StrictJSONBuildable> {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Objects and arrays open at `index` (a reader that walks objects
    /// itself, like `FCMSendScanner`, counts its own in it too).
    var depth = 0
    /// The content of the string being read when it has escapes.
    var unescaped: [UInt8] = []
    static var maximumDepth: Int { 64 }

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses a complete JSON text.
    static func parse(_ bytes: [UInt8]) -> Value? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = StrictJSONParser(buffer)
            guard let value = parser.parseValue() else { return nil }
            parser.skipWhitespace()
            return parser.index == buffer.count ? value : nil
        }
    }

    /// Runs `read` with a parser at the start of `bytes`, for a reader that
    /// walks the text itself with this grammar's pieces (`skipWhitespace`,
    /// `readString`, `parseValue`); its result counts only when nothing but
    /// whitespace follows what it read.
    static func read<Result>(_ bytes: [UInt8], _ read: (inout StrictJSONParser) -> Result?) -> Result? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = StrictJSONParser(buffer)
            guard let result = read(&parser) else { return nil }
            parser.skipWhitespace()
            return parser.index == buffer.count ? result : nil
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Parses the value at `index` (whitespace first).
    mutating func parseValue() -> Value? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return parseObject()
        case UInt8(ascii: "["): return parseArray()
        case UInt8(ascii: "\""): return readString(Value.makeString)
        case UInt8(ascii: "t"): return parseLiteral("true", Value.makeBool(true))
        case UInt8(ascii: "f"): return parseLiteral("false", Value.makeBool(false))
        case UInt8(ascii: "n"): return parseLiteral("null", Value.makeNull())
        default: return parseNumber()
        }
    }

    mutating func parseLiteral(_ word: StaticString, _ value: Value) -> Value? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        let expected = word.utf8Start
        for offset in 0..<count where bytes[index + offset] != expected[offset] { return nil }
        index += count
        return value
    }

    private mutating func parseObject() -> Value? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return nil }
        index += 1
        var object = Value.beginObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return Value.endObject(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                  let key = readString(Value.makeKey) else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = parseValue() else { return nil }
            Value.add(key, value, to: &object)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return Value.endObject(object) }
            return nil
        }
    }

    private mutating func parseArray() -> Value? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return nil }
        index += 1
        var array = Value.beginArray()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return Value.endArray(array)
        }
        while true {
            guard let value = parseValue() else { return nil }
            Value.add(value, to: &array)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return Value.endArray(array) }
            return nil
        }
    }

    private mutating func parseNumber() -> Value? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            skipDigits()
        }
        return Value.makeNumber(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
