/// Builds parsed JSON values of one representation; lets one strict parser
/// produce both the unordered `SimulatorJSON` (APNs checks) and the ordered
/// `OrderedJSON` (FCM checks, whose error paths count map positions).
protocol StrictJSONBuildable {
    /// An object from its members in the order written (keys may repeat).
    static func makeObject(_ members: [(key: String, value: Self)]) -> Self
    static func makeArray(_ elements: [Self]) -> Self
    static func makeString(_ text: String) -> Self
    /// A number, as its literal text.
    static func makeNumber(_ literal: String) -> Self
    static func makeBool(_ value: Bool) -> Self
    static func makeNull() -> Self
}

extension SimulatorJSON: StrictJSONBuildable {
    /// A repeated key: the last one wins.
    static func makeObject(_ members: [(key: String, value: SimulatorJSON)]) -> SimulatorJSON {
        var dictionary: [String: SimulatorJSON] = [:]
        for member in members { dictionary[member.key] = member.value }
        return .object(dictionary)
    }
    static func makeArray(_ elements: [SimulatorJSON]) -> SimulatorJSON { .array(elements) }
    static func makeString(_ text: String) -> SimulatorJSON { .string(text) }
    static func makeNumber(_ literal: String) -> SimulatorJSON { .number(literal) }
    static func makeBool(_ value: Bool) -> SimulatorJSON { .bool(value) }
    static func makeNull() -> SimulatorJSON { .null }
}

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

/// The parser behind `SimulatorJSONParser`, generic over the value built.
struct StrictJSONParser<Value: StrictJSONBuildable> {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static var maximumDepth: Int { 64 }

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a complete JSON text.
    static func parse(_ bytes: [UInt8]) -> Value? {
        var parser = StrictJSONParser(bytes)
        guard let value = parser.parseValue() else { return nil }
        parser.skipWhitespace()
        return parser.index == bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func parseValue() -> Value? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return parseObject()
        case UInt8(ascii: "["): return parseArray()
        case UInt8(ascii: "\""): return parseString().map(Value.makeString)
        case UInt8(ascii: "t"): return parseLiteral("true", Value.makeBool(true))
        case UInt8(ascii: "f"): return parseLiteral("false", Value.makeBool(false))
        case UInt8(ascii: "n"): return parseLiteral("null", Value.makeNull())
        default: return parseNumber()
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: Value) -> Value? {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count,
              Array(bytes[index..<index + expected.count]) == expected else { return nil }
        index += expected.count
        return value
    }

    private mutating func parseObject() -> Value? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return nil }
        index += 1
        var members: [(key: String, value: Value)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return Value.makeObject(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = parseString() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = parseValue() else { return nil }
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return Value.makeObject(members) }
            return nil
        }
    }

    private mutating func parseArray() -> Value? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return nil }
        index += 1
        var elements: [Value] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return Value.makeArray(elements)
        }
        while true {
            guard let value = parseValue() else { return nil }
            elements.append(value)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return Value.makeArray(elements) }
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
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return Value.makeNumber(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Parses a string starting at the opening quote; validates escapes and UTF-8.
    private mutating func parseString() -> String? {
        index += 1
        var scalars: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = parseUnicodeEscape() else { return nil }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                scalars.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// Parses the hex digits after `\u`, joining a surrogate pair when present.
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
